#!/usr/bin/env python3
"""Side-by-side comparison of tinkertoy with MuJoCo and pymunk (Chipmunk) on the same scenes.

Scenes (h = 1/60 s):
  A  simple pendulum, L = 1 m, m = 1 kg, theta0 = 1 rad, RK4, 10 s
     tinkertoy `lagrangian` + rk4  vs  MuJoCo hinge (point mass), integrator RK4
  B  double pendulum, unit lengths and masses, both arms horizontal, RK4, 10 s
     tinkertoy `lagrangian` + rk4  vs  MuJoCo two hinges, RK4
  D  3D chain of 10 and 100 cuboid links (0.5 x 0.05 x 0.05 m, 1 kg) on ball joints, zig-zag start,
     5 s: tinkertoy `lagrangian` + rk4 (joint coordinates, ball joints as quaternions: the same ODE
     as MuJoCo's) and `xpbd_newton` + `envelope_ldlt` (rigid to 3e-7 m)  vs  MuJoCo ball joints, RK4
  C  chain of N = 10, 100, 1000 unit point masses on 0.1 m links, first pinned, released
     horizontal, 5 s
     tinkertoy `impulse` + `gauss_seidel` at 10 sweeps (sequential impulses; the exact residual
     checked once, after the last sweep, as a game engine never checks it)  vs  pymunk with
     10 iterations (Chipmunk's sequential impulses), and tinkertoy `xpbd_newton` + `envelope_ldlt`
     (the rigid cell)

Accuracy: energy error max |E(t) - E(0)| / E_scale (E_scale as in tinkertoy: m g L for A,
g (m1 L1 + m2 (L1 + L2)) for B, sum of m g x hanging depth for C), sampled every step for the
peers and every 0.05 s for tinkertoy; for C also the largest link-length error [m] and the time of
a blow-up (a link error above 10 m). Time: the median wall time of one step — tinkertoy's
`timing.csv` (serial re-runs pinned to one core), the peers' per-step `mj_step` / `space.step`
calls timed with perf_counter (each includes one Python-to-C call, about 0.1 us).

Run from the repository root:  pip install -r compare/requirements.txt && python3 compare/compare.py
It builds tinkertoy in release mode, runs everything in one invocation and prints one Markdown
table (with the date and machine) on standard output.
"""

import csv
import datetime
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

H = 1.0 / 60.0
G = 9.81
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# ----------------------------------------------------------------------------- tinkertoy

def tinkertoy_binary():
    subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True)
    return os.path.join(ROOT, "target", "release", "tinkertoy")


def run_tinkertoy(binary, workdir, name, body):
    """Runs one experiment; returns {label: (summary row, timing row)}."""
    path = os.path.join(workdir, name + ".yaml")
    with open(path, "w") as f:
        f.write("name: %s\n%s" % (name, body))
    subprocess.run([binary, "run", path, "--reports", workdir], check=True, stdout=subprocess.DEVNULL)
    out = os.path.join(workdir, name)
    summary = list(csv.DictReader(open(os.path.join(out, "summary.csv"))))
    timing = {r["cell"]: r for r in csv.DictReader(open(os.path.join(out, "timing.csv")))}
    return [(r, timing.get(r["cell"])) for r in summary]


def tinkertoy_cells(binary, workdir):
    rows = {}
    # scenes A and B: lagrangian + rk4 at h = 1/60 s for 10 s
    rk4 = """
formulations: [{name: lagrangian}]
solvers: [{name: dense_cholesky}]
integrators: [{name: rk4}]
steps: ["1/60"]
duration: 10
sample_interval: 0.05
"""
    rows["A"] = run_tinkertoy(binary, workdir, "cmp_a", "scene: {name: pendulum, params: {theta0: 1.0}}" + rk4)[0]
    horizontal = "{theta1: 1.5707963267948966, theta2: 1.5707963267948966}"
    rows["B"] = run_tinkertoy(binary, workdir, "cmp_b", "scene: {name: double_pendulum, params: %s}" % horizontal + rk4)[0]
    c = run_tinkertoy(binary, workdir, "cmp_c", """
scene: {name: chain, params: {n: [10, 100, 1000], link: 0.1}}
formulations:
  - name: impulse
  - {name: xpbd_newton, label: "xpbd newton", params: {substeps: 1, iterations: 3, tol: 3.0e-7}}
solvers:
  - {name: gauss_seidel, label: "gauss_seidel (10 sweeps)", params: {max_iter: 10, require_convergence: false, tol: 1.0e-14, check_every: 10}}
  - name: envelope_ldlt
steps: ["1/60"]
duration: 5
sample_interval: 0.05
divergence_bound: 10
""")
    for r, t in c:
        rows[("C", r["scene"], r["formulation"], r["solver"])] = (r, t)
    d = run_tinkertoy(binary, workdir, "cmp_d", """
scene: {name: chain_3d, params: {n: [10, 100], link: 0.5, width: 0.05, zigzag: 0.5}}
formulations:
  - name: lagrangian
  - {name: xpbd_newton, label: "xpbd newton", params: {substeps: 1, iterations: 3, tol: 3.0e-7}}
solvers:
  - name: envelope_ldlt
integrators: [{name: rk4}]
steps: ["1/60"]
duration: 5
sample_interval: 0.05
divergence_bound: 10
""")
    for r, t in d:
        rows[("D", r["scene"], r["formulation"])] = (r, t)
    return rows


# ----------------------------------------------------------------------------- MuJoCo

def mujoco_pendulums(duration=10.0):
    import mujoco

    def run(xml, qpos, e_scale):
        m = mujoco.MjModel.from_xml_string(xml)
        d = mujoco.MjData(m)
        d.qpos[:] = qpos
        mujoco.mj_forward(m, d)
        e0 = d.energy[0] + d.energy[1]
        steps = round(duration / H)
        worst, times = 0.0, []
        for _ in range(steps):
            t0 = time.perf_counter()
            mujoco.mj_step(m, d)
            times.append(time.perf_counter() - t0)
            # after an RK4 step d.energy holds the last stage's state: evaluate at the new state
            mujoco.mj_forward(m, d)
            worst = max(worst, abs(d.energy[0] + d.energy[1] - e0) / e_scale)
        return statistics.median(times), worst

    # point masses on massless rods: the inertia is the body's mass at its centre (a tiny
    # rotational inertia, 1e-9 kg m^2, keeps MuJoCo's inertia check satisfied)
    head = """<mujoco><option timestep="%.17g" gravity="0 0 -9.81" integrator="RK4">
    <flag energy="enable" contact="disable"/></option><worldbody>""" % H
    pend = head + """<body><joint type="hinge" axis="0 1 0"/>
      <inertial pos="0 0 -1" mass="1" diaginertia="1e-9 1e-9 1e-9"/></body></worldbody></mujoco>"""
    dpend = head + """<body><joint type="hinge" axis="0 1 0"/>
      <inertial pos="0 0 -1" mass="1" diaginertia="1e-9 1e-9 1e-9"/>
      <body pos="0 0 -1"><joint type="hinge" axis="0 1 0"/>
      <inertial pos="0 0 -1" mass="1" diaginertia="1e-9 1e-9 1e-9"/></body></body></worldbody></mujoco>"""
    a = run(pend, [1.0], 1.0 * G * 1.0)
    b = run(dpend, [math.pi / 2, 0.0], G * (1.0 * 1.0 + 1.0 * 2.0))
    return a, b


def mujoco_chain_3d(n, duration=5.0, link=0.5, width=0.05, zigzag=0.5):
    """tinkertoy's chain_3d: n cuboid links (link x width x width, 1 kg) on ball joints, the first
    hung from the origin, released in a horizontal zig-zag (link i at +-zigzag from x in the x-z
    plane), gravity along -y; MuJoCo's RK4 on its joint coordinates."""
    import mujoco

    ixx = 2.0 * width * width / 12.0
    iyy = (link * link + width * width) / 12.0
    xml = ["""<mujoco><option timestep="%.17g" gravity="0 -9.81 0" integrator="RK4">
    <flag energy="enable" contact="disable"/></option><worldbody>""" % H]
    for i in range(n):
        phi = zigzag if i % 2 == 0 else -zigzag
        # body frame: origin at the joint, x along the link; Ry(-phi) in the world, so relative to
        # the previous link Ry(phi_prev - phi)
        rel = -phi if i == 0 else (-zigzag if i % 2 == 0 else zigzag) - phi
        pos = "0 0 0" if i == 0 else "%.17g 0 0" % link
        xml.append('<body pos="%s" quat="%.17g 0 %.17g 0"><joint type="ball"/>'
                   '<inertial pos="%.17g 0 0" mass="1" diaginertia="%.17g %.17g %.17g"/>'
                   % (pos, math.cos(rel / 2), math.sin(rel / 2), link / 2, ixx, iyy, iyy))
    xml.append("</body>" * n + "</worldbody></mujoco>")
    m = mujoco.MjModel.from_xml_string("".join(xml))
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    e0 = d.energy[0] + d.energy[1]
    e_scale = 9.81 * link * n * n / 2.0
    steps = round(duration / H)
    times, worst, blowup = [], 0.0, None
    for k in range(steps):
        t0 = time.perf_counter()
        mujoco.mj_step(m, d)
        times.append(time.perf_counter() - t0)
        mujoco.mj_forward(m, d)
        e = abs(d.energy[0] + d.energy[1] - e0) / e_scale
        if not math.isfinite(e) or e > 1e3:
            blowup = (k + 1) * H
            break
        worst = max(worst, e)
    return statistics.median(times), worst, blowup


# ----------------------------------------------------------------------------- pymunk

def pymunk_chain(n, iterations=10, duration=5.0, link=0.1):
    import pymunk

    space = pymunk.Space()
    space.gravity = (0.0, -G)
    space.iterations = iterations
    bodies = []
    for i in range(n):
        b = pymunk.Body(1.0, float("inf"))  # a point mass: no rotation
        b.position = (i * link, 0.0)
        space.add(b)
        bodies.append(b)
    space.add(pymunk.PivotJoint(space.static_body, bodies[0], (0.0, 0.0)))
    for i in range(1, n):
        space.add(pymunk.PinJoint(bodies[i - 1], bodies[i]))
    e_scale = G * link * n * (n - 1) / 2.0  # sum of m g x depth hanging straight down

    def energy():
        return sum(0.5 * (b.velocity.x ** 2 + b.velocity.y ** 2) + G * b.position.y for b in bodies)

    e0 = energy()
    steps = round(duration / H)
    times, worst_e, worst_c, blowup = [], 0.0, 0.0, None
    for k in range(steps):
        t0 = time.perf_counter()
        space.step(H)
        times.append(time.perf_counter() - t0)
        c = max(abs((bodies[i].position - bodies[i - 1].position).length - link) for i in range(1, n))
        c = max(c, bodies[0].position.length)
        worst_c = max(worst_c, c)
        worst_e = max(worst_e, abs(energy() - e0) / e_scale)
        if c > 10.0 and blowup is None:
            blowup = (k + 1) * H
            break
    return statistics.median(times), worst_e, worst_c, blowup


# ----------------------------------------------------------------------------- table

def us(seconds):
    return "%.2f µs" % (seconds * 1e6) if seconds < 1e-4 else "%.0f µs" % (seconds * 1e6)


def main():
    binary = tinkertoy_binary()
    with tempfile.TemporaryDirectory() as workdir:
        tt = tinkertoy_cells(binary, workdir)
    (ta, ea), (tb, eb) = mujoco_pendulums()
    lines = []
    cpu = platform.processor() or platform.machine()
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    lines.append("Measured %s on %s (%d cores), %s, Python %s; mujoco %s, pymunk %s." % (
        datetime.date.today().isoformat(), cpu, os.cpu_count(), platform.system(),
        platform.python_version(), __import__("mujoco").__version__, __import__("pymunk").version))
    lines.append("")
    lines.append("| scene (h = 1/60 s) | tinkertoy cell | tinkertoy per step | tinkertoy accuracy | peer | peer per step | peer accuracy | ratio |")
    lines.append("|---|---|---|---|---|---|---|---|")

    def tt_row(key):
        r, t = tt[key]
        step = float(t["median_step_seconds"]) if t else float("nan")
        return r, step

    r, s = tt_row("A")
    lines.append("| A: pendulum θ0 = 1 rad, RK4, 10 s | lagrangian + dense_cholesky + rk4 | %s | energy %.2e | MuJoCo hinge, RK4 | %s | energy %.2e | %.2f |"
                 % (us(s), float(r["max_energy_error"]), us(ta), ea, s / ta))
    r, s = tt_row("B")
    lines.append("| B: double pendulum from horizontal, RK4, 10 s | lagrangian + dense_cholesky + rk4 | %s | energy %.2e | MuJoCo two hinges, RK4 | %s | energy %.2e | %.2f |"
                 % (us(s), float(r["max_energy_error"]), us(tb), eb, s / tb))
    for n in (10, 100, 1000):
        pt, pe, pc, pb = pymunk_chain(n)
        peer_acc = "link %.2g m, energy %.2e" % (pc, pe) + ("" if pb is None else ", blows up at %.2f s" % pb)
        for form, solver, label in (("impulse", "gauss_seidel (10 sweeps)", "impulse + gauss_seidel, 10 sweeps"),
                                    ("xpbd newton", "envelope_ldlt", "xpbd_newton (≤ 3 it.) + envelope_ldlt")):
            r, s = tt_row(("C", "n=%d" % n, form, solver))
            acc = "link %.2g m, energy %.2e" % (float(r["max_drift_position"]), float(r["max_energy_error"]) if r["max_energy_error"] else float("nan"))
            if r["status"] != "ok":
                acc += ", %s at %.2f s" % (r["status"], float(r["status_time"]))
            lines.append("| C: chain N = %d, 5 s | %s | %s | %s | pymunk, 10 iterations | %s | %s | %.2f |"
                         % (n, label, us(s), acc, us(pt), peer_acc, s / pt))
    for n in (10, 100):
        mt, me, mb = mujoco_chain_3d(n)
        peer_acc = "joints exact (joint coordinates), energy %.2e" % me + ("" if mb is None else ", blows up at %.2f s" % mb)
        for form, label in (("lagrangian", "lagrangian + rk4 (joint coordinates)"),
                            ("xpbd newton", "xpbd_newton (≤ 3 it.) + envelope_ldlt")):
            r, s = tt_row(("D", "n=%d" % n, form))
            if form == "lagrangian":
                acc = "joints exact (joint coordinates), energy %.2e" % float(r["max_energy_error"])
            else:
                acc = "joint gap %.2g m, energy %.2e" % (float(r["max_drift_position"]), float(r["max_energy_error"]))
            if r["status"] != "ok":
                acc += ", %s at %.2f s" % (r["status"], float(r["status_time"]))
            lines.append("| D: 3D chain, %d cuboid links on ball joints, 5 s | %s | %s | %s | MuJoCo ball joints, RK4 | %s | %s | %.2f |"
                         % (n, label, us(s), acc, us(mt), peer_acc, s / mt))
    print("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
