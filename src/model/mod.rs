//! The mechanical model: bodies, applied forces, constraints, and the layout of q and v.

mod body;
mod force;
mod point;
pub mod rotation;
mod system;

pub use body::{Body, BodyKind};
pub use force::{BodyView, Force};
pub use point::{BodyPoint, cross, dot2, perp, rotate};
pub use system::{ModelError, System};
