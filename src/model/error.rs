//! Errors of model building: bodies, forces, constraints and contact geometry that do not fit
//! together.

/// A model that cannot be built as asked.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ModelError {
    /// A mass or inertia that is not positive and finite.
    #[error("body {body}: {what} = {value} is invalid; expected a finite number > 0")]
    BadInertia {
        /// Body index.
        body: usize,
        /// `"mass"` or `"inertia"`.
        what: &'static str,
        /// The rejected value.
        value: f64,
    },
    /// A force or constraint names a body that does not exist.
    #[error("{owner} refers to body {body}, but the system has {count} bodies")]
    UnknownBody {
        /// What referred to it.
        owner: String,
        /// The index.
        body: usize,
        /// How many bodies exist.
        count: usize,
    },
    /// A force or constraint expects another body kind.
    #[error("{owner} expects body {body} to be {expected}, but it is {found}")]
    KindMismatch {
        /// What referred to it.
        owner: String,
        /// The body index.
        body: usize,
        /// Expected kind.
        expected: &'static str,
        /// Actual kind.
        found: &'static str,
    },
    /// A contact plane whose normal is not a unit vector.
    #[error("contact plane {index}: normal {normal:?} is not a unit vector")]
    BadPlane {
        /// Plane index.
        index: usize,
        /// The rejected normal.
        normal: [f64; 3],
    },
    /// A contact shape with a size that is not positive and finite, a hull without volume, or a
    /// planar shape among shapes in space (or the reverse).
    #[error(
        "contact shape {index}: sizes must be positive and finite, a hull must have volume (a polygon area), and the shapes all lie in space or all in the plane"
    )]
    BadShape {
        /// Shape index.
        index: usize,
    },
    /// A constraint attached twice to the same body.
    #[error("{owner} is attached twice to body {body}")]
    RepeatedBody {
        /// The constraint.
        owner: String,
        /// The body index.
        body: usize,
    },
}
