//! Joint coordinates from the constraint graph, and the articulated-body algorithm on them.
//!
//! A spanning tree over the bodies, grown breadth-first from the world through the constraints
//! that are joints ([`crate::constraint::Constraint::planar_pair`]), turns each tree joint into
//! joint coordinates (Featherstone, *Rigid Body Dynamics Algorithms*, 2008, ch. 4): a revolute
//! joint, a particle's rod (distance) or circle → an angle; a prismatic joint or line → a slide;
//! a pin or ground → none. Bodies the world does not reach become free roots (x, y and θ for a
//! planar rigid body, x and y for a particle). The constraints left out of the tree — loop
//! closures, and any constraint that is no joint — stay explicit (docs/design.md §2.6).
//!
//! [`aba`] evaluates the dynamics on this tree in time linear in the number of bodies.

pub mod aba;
mod kinematics;

pub use aba::Articulated;

use crate::constraint::{Frame2, Motion2};
use crate::model::BodyKind;
use crate::system::System;

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

impl Tree {
    /// The spanning tree of `system`'s constraint graph, breadth-first from the world in constraint
    /// order, or why the mechanism has none (a rigid-3D body or particle in space, or a joint whose
    /// carried side cannot hold it).
    pub fn new(system: &System) -> Result<Tree, TreeError> {
        let bodies = system.bodies();
        let cons = system.constraints();
        for (i, b) in bodies.iter().enumerate() {
            if b.kind.dim() != 2 {
                let joint = cons
                    .iter()
                    .find(|c| c.bodies().contains(&i))
                    .map_or("free body".to_string(), |c| format!("joint `{}`", c.kind()));
                return Err(TreeError(format!(
                    "body {i} is {} ({joint}): joint coordinates are built for planar mechanisms only",
                    b.kind.label()
                )));
            }
        }
        // Adjacency: constraint indices per body, in constraint order.
        let mut adj: Vec<Vec<usize>> = vec![Vec::new(); bodies.len()];
        for (ci, c) in cons.iter().enumerate() {
            if c.planar_pair().is_some() {
                for &b in c.bodies() {
                    adj[b].push(ci);
                }
            }
        }
        let mut link_of = vec![usize::MAX; bodies.len()];
        let mut used = vec![false; cons.len()];
        let mut links: Vec<Link> = Vec::with_capacity(bodies.len());
        let mut dim = 0;
        let mut attach = |links: &mut Vec<Link>,
                          link_of: &mut Vec<usize>,
                          body: usize,
                          parent: Option<usize>,
                          joint: JointKind,
                          frames: (Frame2, Frame2),
                          constraint: Option<usize>|
         -> Result<(), TreeError> {
            let b = &bodies[body];
            let particle = b.kind == BodyKind::Particle2;
            let dof = match joint {
                JointKind::Free => b.kind.dof(),
                JointKind::Fixed => 0,
                _ => 1,
            };
            if particle && joint == JointKind::Revolute {
                return Err(TreeError(format!(
                    "joint `{}` turns particle {body} about its own point: a particle has no rotational inertia",
                    constraint.map_or("free", |c| cons[c].kind())
                )));
            }
            if !particle && matches!(joint, JointKind::Arm(_)) {
                return Err(TreeError(format!(
                    "joint `{}` carries rigid body {body} on a rod",
                    cons[constraint.unwrap_or(0)].kind()
                )));
            }
            link_of[body] = links.len();
            links.push(Link {
                body,
                parent,
                joint,
                frame_parent: frames.0,
                frame_child: frames.1,
                constraint,
                offset: dim,
                dof,
                particle,
                mass: b.mass,
                inertia: if particle { 0.0 } else { b.inertia[2] },
            });
            dim += dof;
            Ok(())
        };
        let joint_of = |m: Motion2| match m {
            Motion2::Revolute => JointKind::Revolute,
            Motion2::Arm(l) => JointKind::Arm(l),
            Motion2::Prismatic => JointKind::Prismatic,
            Motion2::Fixed => JointKind::Fixed,
        };
        // Roots: bodies held by the world, in constraint order.
        for (ci, c) in cons.iter().enumerate() {
            let Some(p) = c.planar_pair() else { continue };
            let (world, body) = match (p.first.body, p.second.body) {
                (None, Some(b)) => (p.first.frame, (b, p.second.frame)),
                (Some(b), None) => (p.second.frame, (b, p.first.frame)),
                _ => continue,
            };
            if link_of[body.0] == usize::MAX {
                attach(&mut links, &mut link_of, body.0, None, joint_of(p.motion), (world, body.1), Some(ci))?;
                used[ci] = true;
            }
        }
        let mut head = 0;
        loop {
            // Breadth-first over the links found so far.
            while head < links.len() {
                let (li, body) = (head, links[head].body);
                head += 1;
                for &ci in &adj[body] {
                    if used[ci] {
                        continue;
                    }
                    let p = cons[ci].planar_pair().expect("adjacency holds joints only");
                    let (Some(a), Some(b)) = (p.first.body, p.second.body) else { continue };
                    let (child, fp, fc) =
                        if a == body { (b, p.first.frame, p.second.frame) } else { (a, p.second.frame, p.first.frame) };
                    if link_of[child] != usize::MAX {
                        continue;
                    }
                    attach(&mut links, &mut link_of, child, Some(li), joint_of(p.motion), (fp, fc), Some(ci))?;
                    used[ci] = true;
                }
            }
            // A body the world does not reach roots its own tree as a free body.
            let Some(free) = (0..bodies.len()).find(|&b| link_of[b] == usize::MAX) else { break };
            attach(&mut links, &mut link_of, free, None, JointKind::Free, (Frame2::ORIGIN, Frame2::ORIGIN), None)?;
        }
        let loops: Vec<usize> = (0..cons.len()).filter(|&ci| !used[ci]).collect();
        let loop_rows = loops.iter().map(|&ci| cons[ci].rows()).sum();
        Ok(Tree { links, dim, loops, loop_rows, link_of })
    }

    /// Bytes of the workspace [`Articulated`] allocates for this tree (for the memory budget).
    pub fn workspace_bytes(&self, ndof: usize) -> u64 {
        let m = self.loop_rows as u64;
        (self.links.len() * std::mem::size_of::<aba::LinkState>()) as u64
            + 8 * (6 * ndof as u64 + 4 * self.dim as u64 + m * m + 4 * m)
    }
}
