//! Prescribed functions of time: expressions, e.g. `asin(0.1 * sin(10 * t))` (the `function:`
//! of a model file's drive), and tables interpolated by a natural cubic spline ([`Spline`], the
//! `table:` of a drive).
//!
//! Grammar (usual precedence; `^` binds tighter than unary minus and is right-associative, so
//! `-t^2` is −(t²) and `2^-t` is 2^(−t)):
//!
//!   expr  = term (("+" | "−") term)*       term  = unary (("*" | "/") unary)*
//!   unary = ("+" | "−") unary | power       power = atom ("^" unary)?
//!   atom  = number | `t` | `pi` | name "(" expr ")" | "(" expr ")"
//!
//! with the functions sin, cos, tan, asin, acos, atan, sinh, cosh, tanh, exp, ln, sqrt. An
//! expression is evaluated on second-order jets (f, f′, f″) — forward-mode differentiation,
//! exact to rounding, no finite differences — since a driving constraint needs f′(t) for its
//! Jacobian and f″(t) for J̇v. A division by zero, a function outside its domain or a non-finite
//! value is an error naming t.

use std::fmt;

/// Longest expression accepted (characters).
pub const MAX_LEN: usize = 1000;
/// Deepest nesting accepted (parentheses, unary signs and powers), so evaluation is bounded.
pub const MAX_DEPTH: usize = 64;

/// The functions an expression may call.
pub const FUNCTIONS: [&str; 12] =
    ["sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "exp", "ln", "sqrt"];

/// A value with its first and second derivatives in t.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Jet {
    /// f(t).
    pub v: f64,
    /// f′(t).
    pub d1: f64,
    /// f″(t).
    pub d2: f64,
}

impl Jet {
    const fn constant(v: f64) -> Jet {
        Jet { v, d1: 0.0, d2: 0.0 }
    }

    /// g(u) from g(u), g′(u), g″(u): (g, g′ u′, g″ u′² + g′ u″) — the chain rule to second order.
    fn chain(self, g: f64, g1: f64, g2: f64) -> Jet {
        Jet { v: g, d1: g1 * self.d1, d2: g2 * self.d1 * self.d1 + g1 * self.d2 }
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Node {
    Num(f64),
    T,
    Neg(Box<Node>),
    Bin(Op, Box<Node>, Box<Node>),
    Call(usize, Box<Node>),
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Op {
    Add,
    Sub,
    Mul,
    Div,
    Pow,
}

/// A parsed expression in t \[s\].
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    text: String,
    root: Node,
}

/// Why an expression cannot be read or evaluated.
#[derive(Clone, Debug, PartialEq)]
pub enum ExprError {
    /// The text is not an expression (message names the column and what was expected).
    Syntax(String),
    /// Evaluation failed at time t \[s\] (division by zero, a domain error, a non-finite value).
    Eval {
        /// The time.
        t: f64,
        /// What went wrong.
        what: String,
    },
}

impl fmt::Display for ExprError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            ExprError::Syntax(m) => f.write_str(m),
            ExprError::Eval { t, what } => write!(f, "{what} at t = {} s", crate::params::fmt_num(*t)),
        }
    }
}

impl std::error::Error for ExprError {}

impl Expr {
    /// Parses `text`.
    pub fn parse(text: &str) -> Result<Expr, ExprError> {
        if text.chars().count() > MAX_LEN {
            return Err(ExprError::Syntax(format!("longer than {MAX_LEN} characters")));
        }
        let mut p = Parser { s: text.as_bytes(), at: 0, depth: 0 };
        let root = p.expr()?;
        p.skip();
        if p.at < p.s.len() {
            return Err(p.error("an operator or the end"));
        }
        Ok(Expr { text: text.trim().to_string(), root })
    }

    /// The expression as written.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// (f(t), f′(t), f″(t)), or why it has none.
    pub fn eval(&self, t: f64) -> Result<Jet, ExprError> {
        let j = eval(&self.root, Jet { v: t, d1: 1.0, d2: 0.0 }).map_err(|what| ExprError::Eval { t, what })?;
        if j.v.is_finite() && j.d1.is_finite() && j.d2.is_finite() {
            Ok(j)
        } else {
            Err(ExprError::Eval { t, what: "the value or a derivative is not finite".into() })
        }
    }
}

fn eval(n: &Node, t: Jet) -> Result<Jet, String> {
    Ok(match n {
        Node::Num(x) => Jet::constant(*x),
        Node::T => t,
        Node::Neg(a) => {
            let a = eval(a, t)?;
            Jet { v: -a.v, d1: -a.d1, d2: -a.d2 }
        }
        Node::Bin(op, a, b) => binary(*op, eval(a, t)?, eval(b, t)?)?,
        Node::Call(f, a) => call(*f, eval(a, t)?)?,
    })
}

fn binary(op: Op, a: Jet, b: Jet) -> Result<Jet, String> {
    Ok(match op {
        Op::Add => Jet { v: a.v + b.v, d1: a.d1 + b.d1, d2: a.d2 + b.d2 },
        Op::Sub => Jet { v: a.v - b.v, d1: a.d1 - b.d1, d2: a.d2 - b.d2 },
        Op::Mul => Jet { v: a.v * b.v, d1: a.d1 * b.v + a.v * b.d1, d2: a.d2 * b.v + 2.0 * a.d1 * b.d1 + a.v * b.d2 },
        Op::Div => {
            if b.v == 0.0 {
                return Err("division by zero".into());
            }
            // q = a / b: q′ = (a′ − q b′) / b, q″ = (a″ − 2 q′ b′ − q b″) / b.
            let v = a.v / b.v;
            let d1 = (a.d1 - v * b.d1) / b.v;
            Jet { v, d1, d2: (a.d2 - 2.0 * d1 * b.d1 - v * b.d2) / b.v }
        }
        Op::Pow if b.d1 == 0.0 && b.d2 == 0.0 => {
            // A constant exponent p: (u^p)′ = p u^(p−1) u′.
            let p = b.v;
            if a.v < 0.0 && p.fract() != 0.0 {
                return Err("a negative number to a non-integer power".into());
            }
            if a.v == 0.0 && p < 2.0 && (a.d1 != 0.0 || a.d2 != 0.0) && p != 1.0 {
                return Err("0 to a power below 2 whose derivative is unbounded".into());
            }
            a.chain(a.v.powf(p), p * a.v.powf(p - 1.0), p * (p - 1.0) * a.v.powf(p - 2.0))
        }
        Op::Pow => {
            // A varying exponent: a^b = exp(b ln a), a > 0.
            if a.v <= 0.0 {
                return Err("a power with a varying exponent of a number ≤ 0".into());
            }
            let ln = a.chain(a.v.ln(), 1.0 / a.v, -1.0 / (a.v * a.v));
            let e = binary(Op::Mul, b, ln)?;
            let x = e.v.exp();
            e.chain(x, x, x)
        }
    })
}

/// Function `f` (an index into [`FUNCTIONS`]) of u, with its domain checked.
fn call(f: usize, u: Jet) -> Result<Jet, String> {
    let x = u.v;
    let outside =
        |name: &str, domain: &str| Err(format!("`{name}` of {} is outside its domain {domain}", fmt_value(x)));
    let (g, g1, g2) = match FUNCTIONS[f] {
        "sin" => (x.sin(), x.cos(), -x.sin()),
        "cos" => (x.cos(), -x.sin(), -x.cos()),
        "tan" => {
            let t = x.tan();
            (t, 1.0 + t * t, 2.0 * t * (1.0 + t * t))
        }
        "asin" | "acos" => {
            if !(x.abs() < 1.0) {
                return outside(FUNCTIONS[f], "(−1, 1)");
            }
            let r = 1.0 / (1.0 - x * x).sqrt();
            let s = if FUNCTIONS[f] == "asin" { 1.0 } else { -1.0 };
            (if s > 0.0 { x.asin() } else { x.acos() }, s * r, s * x * r * r * r)
        }
        "atan" => {
            let r = 1.0 / (1.0 + x * x);
            (x.atan(), r, -2.0 * x * r * r)
        }
        "sinh" => (x.sinh(), x.cosh(), x.sinh()),
        "cosh" => (x.cosh(), x.sinh(), x.cosh()),
        "tanh" => {
            let t = x.tanh();
            (t, 1.0 - t * t, -2.0 * t * (1.0 - t * t))
        }
        "exp" => (x.exp(), x.exp(), x.exp()),
        "ln" => {
            if !(x > 0.0) {
                return outside("ln", "(0, ∞)");
            }
            (x.ln(), 1.0 / x, -1.0 / (x * x))
        }
        _ => {
            let constant_zero = x == 0.0 && u.d1 == 0.0 && u.d2 == 0.0;
            if !(x > 0.0 || constant_zero) {
                return outside("sqrt", "(0, ∞) (or a constant 0)");
            }
            let r = x.sqrt();
            if x == 0.0 { (0.0, 0.0, 0.0) } else { (r, 0.5 / r, -0.25 / (r * x)) }
        }
    };
    Ok(u.chain(g, g1, g2))
}

fn fmt_value(x: f64) -> String {
    crate::params::fmt_num(x)
}

struct Parser<'a> {
    s: &'a [u8],
    at: usize,
    depth: usize,
}

impl Parser<'_> {
    fn skip(&mut self) {
        while self.at < self.s.len() && self.s[self.at].is_ascii_whitespace() {
            self.at += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.skip();
        self.s.get(self.at).copied()
    }

    fn error(&self, expected: &str) -> ExprError {
        let rest = String::from_utf8_lossy(&self.s[self.at.min(self.s.len())..]);
        let found = if rest.is_empty() { "the end".to_string() } else { format!("`{}`", crate::params::short(&rest)) };
        ExprError::Syntax(format!("at column {}: found {found}; expected {expected}", self.at + 1))
    }

    fn deeper(&mut self) -> Result<(), ExprError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH { Err(ExprError::Syntax(format!("nested deeper than {MAX_DEPTH}"))) } else { Ok(()) }
    }

    fn expr(&mut self) -> Result<Node, ExprError> {
        let mut a = self.term()?;
        while let Some(c @ (b'+' | b'-')) = self.peek() {
            self.at += 1;
            let b = self.term()?;
            a = Node::Bin(if c == b'+' { Op::Add } else { Op::Sub }, Box::new(a), Box::new(b));
        }
        Ok(a)
    }

    fn term(&mut self) -> Result<Node, ExprError> {
        let mut a = self.unary()?;
        while let Some(c @ (b'*' | b'/')) = self.peek() {
            self.at += 1;
            let b = self.unary()?;
            if c == b'/' && b == Node::Num(0.0) {
                return Err(ExprError::Syntax("division by the constant 0".into()));
            }
            a = Node::Bin(if c == b'*' { Op::Mul } else { Op::Div }, Box::new(a), Box::new(b));
        }
        Ok(a)
    }

    fn unary(&mut self) -> Result<Node, ExprError> {
        self.deeper()?;
        let n = match self.peek() {
            Some(b'-') => {
                self.at += 1;
                Node::Neg(Box::new(self.unary()?))
            }
            Some(b'+') => {
                self.at += 1;
                self.unary()?
            }
            _ => {
                let a = self.atom()?;
                if self.peek() == Some(b'^') {
                    self.at += 1;
                    Node::Bin(Op::Pow, Box::new(a), Box::new(self.unary()?))
                } else {
                    a
                }
            }
        };
        self.depth -= 1;
        Ok(n)
    }

    fn atom(&mut self) -> Result<Node, ExprError> {
        let start = match self.peek() {
            Some(c) => c,
            None => return Err(self.error("a number, t, pi, a function or `(`")),
        };
        if start == b'(' {
            self.at += 1;
            let e = self.expr()?;
            if self.peek() != Some(b')') {
                return Err(self.error("`)`"));
            }
            self.at += 1;
            return Ok(e);
        }
        if start.is_ascii_digit() || start == b'.' {
            return self.number();
        }
        let begin = self.at;
        while self.at < self.s.len() && (self.s[self.at].is_ascii_alphanumeric() || self.s[self.at] == b'_') {
            self.at += 1;
        }
        let name = std::str::from_utf8(&self.s[begin..self.at]).unwrap_or("");
        match name {
            "t" => return Ok(Node::T),
            "pi" => return Ok(Node::Num(std::f64::consts::PI)),
            _ => {}
        }
        let Some(f) = FUNCTIONS.iter().position(|&f| f == name) else {
            return Err(ExprError::Syntax(format!(
                "at column {}: unknown symbol {}; expected a number, t, pi, `(` or a function ({})",
                begin + 1,
                if name.is_empty() {
                    format!("`{}`", crate::params::short(&String::from_utf8_lossy(&self.s[begin..])))
                } else {
                    format!("`{}`", crate::params::short(name))
                },
                FUNCTIONS.join(", ")
            )));
        };
        if self.peek() != Some(b'(') {
            return Err(self.error(&format!("`(` after the function `{name}`")));
        }
        self.at += 1;
        self.deeper()?;
        let arg = self.expr()?;
        self.depth -= 1;
        if self.peek() != Some(b')') {
            return Err(self.error("`)`"));
        }
        self.at += 1;
        Ok(Node::Call(f, Box::new(arg)))
    }

    fn number(&mut self) -> Result<Node, ExprError> {
        let begin = self.at;
        let digits = |p: &mut Self| {
            while p.at < p.s.len() && p.s[p.at].is_ascii_digit() {
                p.at += 1;
            }
        };
        digits(self);
        if self.s.get(self.at) == Some(&b'.') {
            self.at += 1;
            digits(self);
        }
        if matches!(self.s.get(self.at), Some(b'e' | b'E')) {
            let mark = self.at;
            self.at += 1;
            if matches!(self.s.get(self.at), Some(b'+' | b'-')) {
                self.at += 1;
            }
            let exp_start = self.at;
            digits(self);
            if self.at == exp_start {
                self.at = mark;
            }
        }
        let text = std::str::from_utf8(&self.s[begin..self.at]).unwrap_or("");
        match text.parse::<f64>() {
            Ok(x) if x.is_finite() => Ok(Node::Num(x)),
            _ => {
                self.at = begin;
                Err(self.error("a finite number"))
            }
        }
    }
}

/// Largest table a spline accepts (knots).
pub const MAX_KNOTS: usize = 1_000_000;

/// A natural cubic spline through (tᵢ, yᵢ): C² (f, f′ and f″ continuous), cubic on each interval,
/// f″ = 0 at both ends (de Boor, A Practical Guide to Splines, 1978, ch. IV: the second
/// derivatives Mᵢ solve the tridiagonal system
/// hᵢ₋₁ Mᵢ₋₁ + 2 (hᵢ₋₁ + hᵢ) Mᵢ + hᵢ Mᵢ₊₁ = 6 ((yᵢ₊₁ − yᵢ)/hᵢ − (yᵢ − yᵢ₋₁)/hᵢ₋₁)). Outside
/// [t₀, tₙ] it has no value.
#[derive(Clone, Debug, PartialEq)]
pub struct Spline {
    t: Vec<f64>,
    y: Vec<f64>,
    m: Vec<f64>,
}

impl Spline {
    /// The spline through `t` (strictly increasing, finite, at least 2 knots) and `y` (finite,
    /// as many); the message names the first bad entry.
    pub fn new(t: &[f64], y: &[f64]) -> Result<Spline, String> {
        if t.len() != y.len() {
            return Err(format!("`t` has {} entries and `value` {}; expected as many", t.len(), y.len()));
        }
        if t.len() < 2 || t.len() > MAX_KNOTS {
            return Err(format!("{} knots; expected 2 to {MAX_KNOTS}", t.len()));
        }
        for (name, v) in [("t", t), ("value", y)] {
            if let Some(i) = v.iter().position(|x| !x.is_finite()) {
                return Err(format!("`{name}[{i}]` = {}; expected a finite number", v[i]));
            }
        }
        if let Some(i) = (1..t.len()).find(|&i| !(t[i] > t[i - 1])) {
            return Err(format!(
                "`t[{i}]` = {} does not follow `t[{}]` = {}; expected strictly increasing times",
                crate::params::fmt_num(t[i]),
                i - 1,
                crate::params::fmt_num(t[i - 1])
            ));
        }
        let n = t.len();
        let mut m = vec![0.0; n];
        if n > 2 {
            // Thomas algorithm on the interior equations (diagonally dominant: no pivoting).
            let h = |i: usize| t[i + 1] - t[i];
            let (mut diag, mut rhs) = (vec![0.0; n], vec![0.0; n]);
            for i in 1..n - 1 {
                diag[i] = 2.0 * (h(i - 1) + h(i));
                rhs[i] = 6.0 * ((y[i + 1] - y[i]) / h(i) - (y[i] - y[i - 1]) / h(i - 1));
            }
            for i in 2..n - 1 {
                let w = h(i - 1) / diag[i - 1];
                diag[i] -= w * h(i - 1);
                rhs[i] -= w * rhs[i - 1];
            }
            for i in (1..n - 1).rev() {
                m[i] = (rhs[i] - h(i) * m[i + 1]) / diag[i];
            }
        }
        Ok(Spline { t: t.to_vec(), y: y.to_vec(), m })
    }

    /// The knots' time span \[s\].
    pub fn span(&self) -> (f64, f64) {
        (self.t[0], self.t[self.t.len() - 1])
    }

    /// (f(t), f′(t), f″(t)), or why there is none (t outside the table).
    pub fn eval(&self, t: f64) -> Result<Jet, ExprError> {
        let (a, b) = self.span();
        if !(t >= a && t <= b) {
            return Err(ExprError::Eval { t, what: format!("the table covers [{}, {}] s only", a, b) });
        }
        let i = (self.t.partition_point(|&x| x <= t).max(1) - 1).min(self.t.len() - 2);
        let h = self.t[i + 1] - self.t[i];
        let (p, q) = ((self.t[i + 1] - t) / h, (t - self.t[i]) / h);
        let (mi, mj) = (self.m[i], self.m[i + 1]);
        Ok(Jet {
            v: p * self.y[i] + q * self.y[i + 1] + ((p * p * p - p) * mi + (q * q * q - q) * mj) * h * h / 6.0,
            d1: (self.y[i + 1] - self.y[i]) / h - (3.0 * p * p - 1.0) * h * mi / 6.0
                + (3.0 * q * q - 1.0) * h * mj / 6.0,
            d2: p * mi + q * mj,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Central differences of f and f′ with step δ: truncation δ² |f‴| / 6 and rounding ε/δ.
    fn check(text: &str, t: f64) {
        let e = Expr::parse(text).unwrap();
        let j = e.eval(t).unwrap();
        let d = 1e-5;
        let (a, b) = (e.eval(t + d).unwrap(), e.eval(t - d).unwrap());
        let scale = 1.0 + j.v.abs() + j.d1.abs() + j.d2.abs();
        assert!(
            ((a.v - b.v) / (2.0 * d) - j.d1).abs() < 1e-8 * scale,
            "{text}: f′ {} vs {}",
            j.d1,
            (a.v - b.v) / (2.0 * d)
        );
        assert!(((a.d1 - b.d1) / (2.0 * d) - j.d2).abs() < 1e-7 * scale, "{text}: f″");
    }

    #[test]
    fn derivatives_of_every_function_and_operator_match_differences() {
        for text in [
            "asin(0.1 * sin(10 * t))",
            "acos(t / 3) + atan(2*t)",
            "tan(t) * exp(-t) / (1 + t^2)",
            "sqrt(1 - (0.1*sin(10*t))^2)",
            "ln(2 + cos(t)) - sinh(t) + cosh(t/2) * tanh(t)",
            "2^t + t^2.5 - (t+1)^(t/3)",
            "-t^2 + 3.5e-1*t - pi",
        ] {
            for t in [0.3, 1.1, 2.0] {
                check(text, t);
            }
        }
    }

    #[test]
    fn a_spline_reproduces_lines_converges_at_order_4_and_is_c2() {
        // A straight line is a natural spline, reproduced to rounding; the spline through
        // samples of sin on [0, π] (f″ = 0 at both ends, as the natural end conditions say)
        // converges at order 4 (its end conditions are exact: sin″ = 0 at 0 and π). The bound is
        // the complete spline's (5/384) h⁴ max|f⁗| (Hall & Meyer 1976), h = π/40: 4.9e-7; the
        // largest error measured is 2.7e-8. A wrong end condition or system breaks it (O(h²)).
        let line = Spline::new(&[0.0, 0.5, 2.0, 3.0], &[1.0, 2.0, 5.0, 7.0]).unwrap();
        let j = line.eval(1.3).unwrap();
        assert!((j.v - 3.6).abs() < 1e-14 && (j.d1 - 2.0).abs() < 1e-14 && j.d2.abs() < 1e-13, "{j:?}");
        let n = 41;
        let t: Vec<f64> = (0..n).map(|i| std::f64::consts::PI * i as f64 / (n - 1) as f64).collect();
        let y: Vec<f64> = t.iter().map(|x| x.sin()).collect();
        let s = Spline::new(&t, &y).unwrap();
        let bound = 5.0 / 384.0 * (t[1] - t[0]).powi(4);
        for k in 0..200 {
            let x = std::f64::consts::PI * (k as f64 + 0.37) / 200.0;
            let j = s.eval(x).unwrap();
            assert!((j.v - x.sin()).abs() < bound, "{x}: {} > {bound}", j.v - x.sin());
        }
        // Continuity of f, f′, f″ across a knot.
        let (l, r) = (s.eval(t[7] - 1e-12).unwrap(), s.eval(t[7] + 1e-12).unwrap());
        assert!((l.v - r.v).abs() < 1e-11 && (l.d1 - r.d1).abs() < 1e-10 && (l.d2 - r.d2).abs() < 1e-10);
        assert!(s.eval(3.2).unwrap_err().to_string().contains("covers [0, 3.14"));
        assert!(Spline::new(&[0.0, 0.2, 0.1], &[0.0; 3]).unwrap_err().contains("`t[2]` = 0.1 does not follow"));
        assert!(Spline::new(&[0.0, 1.0], &[0.0, f64::NAN]).unwrap_err().contains("`value[1]` = NaN"));
    }

    #[test]
    fn precedence_is_the_usual_one() {
        let v = |s: &str| Expr::parse(s).unwrap().eval(2.0).unwrap().v;
        assert_eq!(v("-t^2"), -4.0);
        assert_eq!(v("1 + 2 * t ^ 2"), 9.0);
        assert_eq!(v("2^-t"), 0.25);
        assert_eq!(v("2^3^2"), 512.0);
        assert_eq!(v("8 / 2 / 2"), 2.0);
        assert_eq!(v("1 - 2 - 3"), -4.0);
        assert_eq!(v("(1 + t) * 3"), 9.0);
    }

    #[test]
    fn bad_text_and_bad_values_are_named() {
        let syntax = |s: &str| match Expr::parse(s) {
            Err(ExprError::Syntax(m)) => m,
            other => panic!("{s}: {other:?}"),
        };
        assert!(syntax("sin(x)").contains("unknown symbol `x`"));
        assert!(syntax("foo(t)").contains("unknown symbol `foo`"));
        assert!(syntax("1/0").contains("division by the constant 0"));
        assert!(syntax("(t + 1").contains("expected `)`"));
        assert!(syntax("t t").contains("expected an operator"));
        assert!(syntax("").contains("found the end"));
        assert!(syntax(&"(".repeat(100)).contains("nested deeper"));
        assert!(syntax(&"t+".repeat(600)).contains("longer than"));
        let eval = |s: &str, t: f64| Expr::parse(s).unwrap().eval(t).unwrap_err().to_string();
        assert_eq!(eval("1 / (t - 1)", 1.0), "division by zero at t = 1 s");
        assert!(eval("sqrt(t - 2)", 1.0).contains("`sqrt` of -1"));
        assert!(eval("asin(2 * t)", 1.0).contains("`asin` of 2"));
        assert!(eval("exp(exp(t))", 10.0).contains("not finite"));
    }
}
