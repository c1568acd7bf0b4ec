//! Joint coordinates from the constraint graph, and the articulated-body algorithm on them.
//!
//! A spanning tree over the bodies, grown breadth-first from the world through the constraints
//! that are joints ([`crate::constraint::Constraint::planar_pair`],
//! [`crate::constraint::Constraint::spatial_pair`]), turns each tree joint into joint coordinates
//! (Featherstone, *Rigid Body Dynamics Algorithms*, 2008, ch. 4): a revolute joint or hinge, a
//! particle's rod (distance in the plane) or circle → an angle; a prismatic joint, slider or line
//! → a slide; a ball → a unit quaternion; a weld, pin or ground → none. Bodies the world does not
//! reach become free roots. The constraints left out of the tree — loop closures, and any
//! constraint that is no joint — stay explicit (docs/design.md §2.2).
//!
//! [`aba`] (planar) and [`spatial_aba`] (in space) evaluate the dynamics on the tree in time linear
//! in the number of bodies.

pub mod aba;
mod kinematics;
pub mod spatial;
pub mod spatial_aba;

pub use aba::{Articulated, Degenerate};
pub use spatial::Tree3;
pub use spatial_aba::Articulated3;

use crate::constraint::{Frame2, Motion2};
use crate::model::BodyKind;
use crate::system::System;

/// The dynamics of a joint tree, planar or spatial: what `lagrangian` needs of it.
pub trait TreeDynamics: Send {
    /// Number of velocity coordinates k.
    fn dim(&self) -> usize;
    /// Number of position coordinates (k unless the tree has ball joints or free rigid-3D roots).
    fn position_dim(&self) -> usize {
        self.dim()
    }
    /// The constraints left out of the tree (loop closures), in system order.
    fn loops(&self) -> &[usize];
    /// Sets the tree to (x, ẋ): poses, motion subspaces, spatial velocities and biases.
    fn set_state(&mut self, x: &[f64], xd: &[f64]);
    /// The Cartesian (q, v) of the state last set.
    fn cartesian_state(&self, q: &mut [f64], v: &mut [f64]);
    /// Joint accelerations under the Cartesian generalized forces `forces` at the state last set
    /// (the articulated-body algorithm's three passes).
    fn solve(&mut self, forces: &[f64], udd: &mut [f64]) -> Result<(), Degenerate>;
    /// The same for other forces reusing the last [`TreeDynamics::solve`]'s inertias; without
    /// `dynamic`, the response at rest (no velocity terms).
    fn resolve(&mut self, forces: &[f64], dynamic: bool, udd: &mut [f64]) -> Result<(), Degenerate>;
    /// The spatial accelerations of given joint accelerations (q̈ = J ü + J̇ u̇).
    fn prescribed_accelerations(&mut self, udd: &[f64]);
    /// The Cartesian q̈ of the accelerations last computed (without `dynamic`: at rest).
    fn cartesian_accelerations(&self, dynamic: bool, out: &mut [f64]);
    /// The joint coordinates (x, ẋ) of a Cartesian state satisfying the tree's constraints.
    fn reduce(&mut self, q: &[f64], v: &[f64], x: &mut [f64], xd: &mut [f64]);
    /// x ← x ⊕ h ẋ (the exponential map on quaternion coordinates).
    fn advance(&self, x: &mut [f64], xd: &[f64], h: f64) {
        for (xi, vi) in x.iter_mut().zip(xd) {
            *xi += h * vi;
        }
    }
    /// ẋ as the time derivative of x (½ Q ⊗ (0, w) on quaternion coordinates).
    fn position_rate(&self, _x: &[f64], xd: &[f64], out: &mut [f64]) {
        out.copy_from_slice(xd);
    }
    /// Renormalizes quaternion coordinates; whether there are any.
    fn normalize(&self, _x: &mut [f64]) -> bool {
        false
    }
}

/// The joint tree of `system` with its workspace: planar for planar bodies, spatial for bodies
/// in space; or why it has none.
pub fn build(system: &System) -> Result<Box<dyn TreeDynamics + '_>, TreeError> {
    if in_space(system) {
        Ok(Box::new(Articulated3::new(system, Tree3::new(system)?)))
    } else {
        Ok(Box::new(Articulated::new(system, Tree::new(system)?)))
    }
}

/// Which bodies are clocks (of driving constraints): they are no link of the tree; `lagrangian`
/// carries their time coordinate beside the joint coordinates, and the drives stay explicit.
pub(crate) fn clocks(system: &System) -> Vec<bool> {
    system.bodies().iter().map(|b| b.kind == BodyKind::Clock).collect()
}

/// Whether every body of `system` (its clock aside) is in space (the spatial tree) rather than in the plane.
pub fn in_space(system: &System) -> bool {
    let mut bodies = system.bodies().iter().filter(|b| b.kind != BodyKind::Clock).peekable();
    bodies.peek().is_some() && bodies.all(|b| b.kind.dim() == 3)
}

/// The bytes of the tree workspace and the loop-closure rows of `system`'s joint tree (for the
/// memory budget), or why it has none.
pub fn footprint(system: &System) -> Result<(u64, usize), TreeError> {
    let n = system.ndof();
    if in_space(system) {
        let t = Tree3::new(system)?;
        Ok((t.workspace_bytes(n), t.loop_rows))
    } else {
        let t = Tree::new(system)?;
        Ok((t.workspace_bytes(n), t.loop_rows))
    }
}

/// How a body hangs from its parent in the tree.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum JointKind {
    /// Rotation about the parent frame's origin (1 coordinate \[rad\]).
    Revolute,
    /// A particle on a rod of this length \[m\] about the parent frame's origin (1 coordinate \[rad\]).
    Arm(f64),
    /// Translation along the parent frame's x axis (1 coordinate \[m\]).
    Prismatic,
    /// Rigidly attached (no coordinate).
    Fixed,
    /// A free root: (x, y \[m\], θ \[rad\]) of a rigid body, (x, y) of a particle.
    Free,
}

/// One body of the tree.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Link {
    /// Body index in the system.
    pub body: usize,
    /// Index of the parent link in [`Tree::links`], or `None` for the world.
    pub parent: Option<usize>,
    /// The joint to the parent.
    pub joint: JointKind,
    /// The joint frame on the parent (world coordinates for the world).
    pub frame_parent: Frame2,
    /// The joint frame on this body.
    pub frame_child: Frame2,
    /// The constraint that is this joint (`None` for a free root).
    pub constraint: Option<usize>,
    /// Offset of its joint coordinates in u.
    pub offset: usize,
    /// Number of joint coordinates.
    pub dof: usize,
    /// Whether the body is a particle (no rotational inertia; its angle is the tree's).
    pub particle: bool,
    /// Mass \[kg\].
    pub mass: f64,
    /// Moment of inertia about the centre of mass \[kg·m²\] (0 for a particle).
    pub inertia: f64,
}

/// The spanning tree of a planar mechanism: links in topological order (parents first) and the
/// constraints that stay explicit.
#[derive(Clone, Debug)]
pub struct Tree {
    /// The links, parents before children.
    pub links: Vec<Link>,
    /// Number of joint coordinates k.
    pub dim: usize,
    /// Constraints left out of the tree (loop closures), in system order.
    pub loops: Vec<usize>,
    /// Their rows in total.
    pub loop_rows: usize,
    /// Link index of each body.
    pub link_of: Vec<usize>,
}

/// Why a mechanism has no joint coordinates here.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct TreeError(pub String);

/// An edge of a spanning tree: a body, the link it hangs from, and the constraint that holds it
/// (`None` for a free root), with whether the body is the pair's first side.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Edge {
    pub body: usize,
    pub parent: Option<usize>,
    pub constraint: Option<usize>,
    pub body_is_first: bool,
}

/// The spanning tree over `nbodies` bodies, breadth-first from the world in constraint order:
/// `sides(ci)` gives the (first, second) bodies of constraint `ci` if it is a joint (`None` =
/// the world). Bodies the world does not reach root their own trees as free bodies (the lowest
/// index first). Returns the edges in topological order and the constraints left out.
pub(crate) fn spanning_tree(
    nbodies: usize,
    ncons: usize,
    skip: &[bool],
    sides: impl Fn(usize) -> Option<(Option<usize>, Option<usize>)>,
) -> (Vec<Edge>, Vec<usize>) {
    let mut adj: Vec<Vec<usize>> = vec![Vec::new(); nbodies];
    for ci in 0..ncons {
        if let Some((Some(a), Some(b))) = sides(ci) {
            adj[a].push(ci);
            adj[b].push(ci);
        }
    }
    let mut link_of = vec![usize::MAX; nbodies];
    let mut used = vec![false; ncons];
    let mut edges: Vec<Edge> = Vec::with_capacity(nbodies);
    let push = |edges: &mut Vec<Edge>, link_of: &mut Vec<usize>, e: Edge| {
        link_of[e.body] = edges.len();
        edges.push(e);
    };
    // Roots: bodies held by the world, in constraint order.
    for (ci, u) in used.iter_mut().enumerate() {
        let (body, first) = match sides(ci) {
            Some((None, Some(b))) => (b, false),
            Some((Some(b), None)) => (b, true),
            _ => continue,
        };
        if link_of[body] == usize::MAX {
            push(&mut edges, &mut link_of, Edge { body, parent: None, constraint: Some(ci), body_is_first: first });
            *u = true;
        }
    }
    let mut head = 0;
    loop {
        while head < edges.len() {
            let (li, body) = (head, edges[head].body);
            head += 1;
            for &ci in &adj[body] {
                let Some((Some(a), Some(b))) = sides(ci) else { continue };
                let (child, first) = if a == body { (b, false) } else { (a, true) };
                if used[ci] || link_of[child] != usize::MAX {
                    continue;
                }
                push(
                    &mut edges,
                    &mut link_of,
                    Edge { body: child, parent: Some(li), constraint: Some(ci), body_is_first: first },
                );
                used[ci] = true;
            }
        }
        let Some(free) = (0..nbodies).find(|&b| link_of[b] == usize::MAX && !skip[b]) else { break };
        push(&mut edges, &mut link_of, Edge { body: free, parent: None, constraint: None, body_is_first: false });
    }
    (edges, (0..ncons).filter(|&ci| !used[ci]).collect())
}

impl Tree {
    /// The spanning tree of `system`'s constraint graph (`spanning_tree`) with planar joints, or
    /// why the mechanism has none here (a body in space, or a joint whose carried side cannot
    /// hold it).
    pub fn new(system: &System) -> Result<Tree, TreeError> {
        let bodies = system.bodies();
        let cons = system.constraints();
        if let Some(i) = bodies.iter().position(|b| b.kind.dim() != 2 && b.kind != BodyKind::Clock) {
            let joint = cons
                .iter()
                .find(|c| c.bodies().contains(&i))
                .map_or("free body".to_string(), |c| format!("joint `{}`", c.kind()));
            return Err(TreeError(format!(
                "body {i} is {} ({joint}) in a mechanism with planar bodies: joint coordinates need one kind",
                bodies[i].kind.label()
            )));
        }
        let pairs: Vec<_> = cons.iter().map(|c| c.planar_pair()).collect();
        let (edges, loops) = spanning_tree(bodies.len(), cons.len(), &clocks(system), |ci| {
            pairs[ci].map(|p| (p.first.body, p.second.body))
        });
        let mut links = Vec::with_capacity(edges.len());
        let mut link_of = vec![usize::MAX; bodies.len()];
        let mut dim = 0;
        for e in edges {
            let b = &bodies[e.body];
            let particle = b.kind == BodyKind::Particle2;
            let (joint, fp, fc) = match e.constraint {
                None => (JointKind::Free, Frame2::ORIGIN, Frame2::ORIGIN),
                Some(ci) => {
                    let p = pairs[ci].expect("tree edges are joints");
                    let (fp, fc) =
                        if e.body_is_first { (p.second.frame, p.first.frame) } else { (p.first.frame, p.second.frame) };
                    let joint = match p.motion {
                        Motion2::Revolute => JointKind::Revolute,
                        Motion2::Arm(l) => JointKind::Arm(l),
                        Motion2::Prismatic => JointKind::Prismatic,
                        Motion2::Fixed => JointKind::Fixed,
                    };
                    if particle && joint == JointKind::Revolute {
                        return Err(TreeError(format!(
                            "joint `{}` turns particle {} about its own point: a particle has no rotational inertia",
                            cons[ci].kind(),
                            e.body
                        )));
                    }
                    if !particle && matches!(joint, JointKind::Arm(_)) {
                        return Err(TreeError(format!(
                            "joint `{}` carries rigid body {} on a rod",
                            cons[ci].kind(),
                            e.body
                        )));
                    }
                    (joint, fp, fc)
                }
            };
            let dof = match joint {
                JointKind::Free => b.kind.dof(),
                JointKind::Fixed => 0,
                _ => 1,
            };
            link_of[e.body] = links.len();
            links.push(Link {
                body: e.body,
                parent: e.parent,
                joint,
                frame_parent: fp,
                frame_child: fc,
                constraint: e.constraint,
                offset: dim,
                dof,
                particle,
                mass: b.mass,
                inertia: if particle { 0.0 } else { b.inertia[2] },
            });
            dim += dof;
        }
        let loop_rows = loops.iter().map(|&ci| cons[ci].rows()).sum();
        Ok(Tree { links, dim, loops, loop_rows, link_of })
    }

    /// Bytes of the workspace [`Articulated`] allocates for this tree (for the memory budget).
    pub fn workspace_bytes(&self, ndof: usize) -> u64 {
        let m = self.loop_rows as u64;
        // Two trees: `lagrangian` keeps one for evaluations and one for read-only queries.
        2 * (self.links.len() * (std::mem::size_of::<aba::LinkState>() + std::mem::size_of::<Link>())) as u64
            + 8 * (6 * ndof as u64 + 16 * m + 4 * self.dim as u64 + m * m + 4 * m)
    }
}
