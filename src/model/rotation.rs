//! Orientation of rigid-3D bodies: unit quaternions, the exponential map and the map from
//! body-frame angular velocity to the quaternion rate.
//!
//! The orientation is the unit quaternion Q = (w, x, y, z) (scalar first) with world vector
//! r = R(Q) r_body. The angular velocity Ω is stored in the *body* frame, so ω_world = R Ω and
//!   Q̇ = ½ Q ⊗ (0, Ω)                                       (Hairer, Lubich & Wanner, GNI §VII.5)
//! One step along a constant body velocity is the exponential map Q⁺ = Q ⊗ exp(h Ω / 2), which
//! keeps |Q| = 1 up to rounding (renormalized after every update); its inverse is the logarithm
//! Ω = log(Q⁻¹ Q⁺) / h.

use nalgebra::{Matrix3, Quaternion, UnitQuaternion, Vector3};

/// The unit quaternion stored in `q[0..4]` = (w, x, y, z) (normalized on reading).
#[inline]
pub fn quaternion(q: &[f64]) -> UnitQuaternion<f64> {
    UnitQuaternion::from_quaternion(Quaternion::new(q[0], q[1], q[2], q[3]))
}

/// Writes `u` as (w, x, y, z) into `out[0..4]`.
#[inline]
pub fn store_quaternion(u: &UnitQuaternion<f64>, out: &mut [f64]) {
    out[0] = u.w;
    out[1] = u.i;
    out[2] = u.j;
    out[3] = u.k;
}

/// The rotation matrix R(Q) of the quaternion in `q[0..4]`.
#[inline]
pub fn rotation_matrix(q: &[f64]) -> Matrix3<f64> {
    quaternion(q).to_rotation_matrix().into_inner()
}

/// The world-frame vector of the three numbers `x[0..3]`.
#[inline]
pub fn vec3(x: &[f64]) -> Vector3<f64> {
    Vector3::new(x[0], x[1], x[2])
}

/// q⁺ = q ⊕ h v for one rigid-3D body: x⁺ = x + h v, Q⁺ = Q ⊗ exp(h Ω / 2), renormalized.
/// `q` has 7 entries (x, y, z, w, qx, qy, qz), `v` 6 entries (v \[m/s\], Ω \[rad/s\], body frame).
pub fn retract(q: &[f64], v: &[f64], h: f64, out: &mut [f64]) {
    for d in 0..3 {
        out[d] = q[d] + h * v[d];
    }
    let dq = UnitQuaternion::from_scaled_axis(vec3(&v[3..6]) * h);
    let next = UnitQuaternion::new_normalize((quaternion(&q[3..7]) * dq).into_inner());
    store_quaternion(&next, &mut out[3..7]);
}

/// The constant velocity that [`retract`] turns `q0` into `q1` over `h`: v = (x₁ − x₀) / h,
/// Ω = log(Q₀⁻¹ Q₁) / h (the rotation vector of the shorter rotation).
pub fn difference(q0: &[f64], q1: &[f64], h: f64, v: &mut [f64]) {
    for d in 0..3 {
        v[d] = (q1[d] - q0[d]) / h;
    }
    let rel = quaternion(&q0[3..7]).inverse() * quaternion(&q1[3..7]);
    let w = rel.scaled_axis() / h;
    v[3..6].copy_from_slice(w.as_slice());
}

/// q̇ of one rigid-3D body: ẋ = v, Q̇ = ½ Q ⊗ (0, Ω).
pub fn qdot(q: &[f64], v: &[f64], out: &mut [f64]) {
    out[..3].copy_from_slice(&v[..3]);
    let qq = Quaternion::new(q[3], q[4], q[5], q[6]);
    let rate = qq * Quaternion::new(0.0, v[3], v[4], v[5]) * 0.5;
    out[3] = rate.w;
    out[4] = rate.i;
    out[5] = rate.j;
    out[6] = rate.k;
}

/// Rescales the quaternion `q[0..4]` to unit length.
pub fn normalize(q: &mut [f64]) {
    let n = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
    for x in &mut q[..4] {
        *x /= n;
    }
}
