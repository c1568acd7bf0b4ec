//! The mechanical model: bodies, applied forces, constraints, and the layout of q and v.

mod body;
mod error;
mod force;
mod point;
pub mod rotation;

pub use body::{Body, BodyKind};
pub use error::ModelError;
pub use force::{BodyView, End, Force};
pub use point::{BodyPoint, cross, dot2, perp, rotate};
