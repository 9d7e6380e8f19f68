//! Result rules and their evaluation against buffer contents.

use std::fmt::{self, Write as _};

use crate::format::Format;
use crate::{BufferDesc, Pipeline};

/// How many mismatches a [`RuleOutcome`] lists; all are counted.
pub const MAX_LISTED_MISMATCHES: usize = 32;

/// A comparison rule from the `Results` section.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Rule {
    /// Every element of Actual equals Expected bit for bit (any NaN equals
    /// any NaN in float formats).
    BufferExact,
    /// Float elements at most `ulpt` units in the last place apart.
    BufferFloatUlp {
        /// The most units in the last place two elements may differ by.
        ulpt: u64,
        /// How subnormal values compare.
        denorm: DenormMode,
    },
    /// Float elements at most `epsilon` apart.
    BufferFloatEpsilon {
        /// The largest absolute difference allowed.
        epsilon: f64,
        /// How subnormal values compare.
        denorm: DenormMode,
    },
}

/// `DenormMode` of the inexact rules: how subnormal values compare, since
/// devices may flush them to zero.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DenormMode {
    /// Either way passes: as they are, or both flushed to zero (the
    /// default).
    #[default]
    Any,
    /// Subnormals of both buffers are flushed to zero of the same sign
    /// first.
    Ftz,
    /// Values compare as they are.
    Preserve,
}

impl crate::named::Named for DenormMode {
    const WHAT: &'static str = "denorm mode";
    const ALL: &'static [Self] = &[DenormMode::Any, DenormMode::Ftz, DenormMode::Preserve];

    fn name(self) -> &'static str {
        match self {
            DenormMode::Any => "Any",
            DenormMode::Ftz => "FTZ",
            DenormMode::Preserve => "Preserve",
        }
    }
}

impl Rule {
    /// The name used in pipeline files.
    pub const fn name(self) -> &'static str {
        match self {
            Rule::BufferExact => "BufferExact",
            Rule::BufferFloatUlp { .. } => "BufferFloatULP",
            Rule::BufferFloatEpsilon { .. } => "BufferFloatEpsilon",
        }
    }

    /// Whether the rule only applies to float formats.
    pub const fn needs_float(self) -> bool {
        !matches!(self, Rule::BufferExact)
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())?;
        match self {
            Rule::BufferExact => Ok(()),
            Rule::BufferFloatUlp { ulpt, .. } => write!(f, ", ULPT {ulpt}"),
            Rule::BufferFloatEpsilon { epsilon, .. } => write!(f, ", Epsilon {epsilon}"),
        }
    }
}

/// One entry of `Results`: compare buffer `actual` with buffer `expected`.
#[derive(Clone, Debug, PartialEq)]
pub struct ResultRule {
    /// The result's name as written in the pipeline file.
    pub name: String,
    /// How the two buffers compare.
    pub rule: Rule,
    /// The name of the buffer the shader wrote.
    pub actual: String,
    /// The name of the buffer holding the expected values.
    pub expected: String,
}

/// One differing element.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// The element index (in elements of the Expected buffer's format).
    pub index: usize,
    /// The Expected buffer's element, in its `Data` spelling.
    pub expected: String,
    /// The Actual buffer's element, in its `Data` spelling.
    pub actual: String,
    /// How far apart the values are, for the inexact rules (`3 ulp`,
    /// `off by 0.25`).
    pub detail: Option<String>,
}

/// The verdict of one [`ResultRule`].
#[derive(Clone, Debug, PartialEq)]
pub struct RuleOutcome {
    /// The [`ResultRule`]'s name.
    pub name: String,
    /// The rule applied.
    pub rule: Rule,
    /// Whether the rule held: no problem, equal sizes and no differing element.
    pub passed: bool,
    /// How many elements were compared (the whole elements both buffers have).
    pub compared: usize,
    /// The first [`MAX_LISTED_MISMATCHES`] differing elements.
    pub mismatches: Vec<Mismatch>,
    /// How many elements differ, listed or not.
    pub total_mismatches: usize,
    /// `(expected bytes, actual bytes)` when the sizes differ.
    pub size_mismatch: Option<(usize, usize)>,
    /// Why the rule could not be evaluated (a missing buffer or a format the
    /// rule does not apply to); only possible for pipelines not made by
    /// `parse`.
    pub problem: Option<String>,
}

impl RuleOutcome {
    fn new(result: &ResultRule) -> Self {
        RuleOutcome {
            name: result.name.clone(),
            rule: result.rule,
            passed: false,
            compared: 0,
            mismatches: Vec::new(),
            total_mismatches: 0,
            size_mismatch: None,
            problem: None,
        }
    }

    fn record(&mut self, mismatch: Mismatch) {
        self.total_mismatches += 1;
        if self.mismatches.len() < MAX_LISTED_MISMATCHES {
            self.mismatches.push(mismatch);
        }
    }

    /// A readable report: a summary line, then one line per listed mismatch.
    /// Every line ends in a newline.
    pub fn render(&self) -> String {
        let mut out = format!("result {} ({}): {}\n", self.name, self.rule, self.summary());
        for m in &self.mismatches {
            let _ = write!(
                out,
                "  [{}] expected {}, actual {}",
                m.index, m.expected, m.actual
            );
            if let Some(detail) = &m.detail {
                let _ = write!(out, " ({detail})");
            }
            out.push('\n');
        }
        let unlisted = self.total_mismatches - self.mismatches.len();
        if unlisted > 0 {
            let _ = writeln!(out, "  ... and {unlisted} more");
        }
        out
    }

    fn summary(&self) -> String {
        if let Some(problem) = &self.problem {
            return problem.clone();
        }
        if self.passed {
            return format!("passed ({} elements)", self.compared);
        }
        let mut parts = Vec::new();
        if let Some((expected, actual)) = self.size_mismatch {
            parts.push(format!("expected {expected} bytes, actual {actual} bytes"));
        }
        if self.total_mismatches > 0 {
            parts.push(format!(
                "{} of {} elements differ",
                self.total_mismatches, self.compared
            ));
        }
        parts.join("; ")
    }
}

/// Why `rule` cannot compare the buffers, if it cannot.
pub(crate) fn format_problem(
    rule: Rule,
    actual: &BufferDesc,
    expected: &BufferDesc,
) -> Option<String> {
    if !rule.needs_float() {
        return None;
    }
    [("Actual", actual), ("Expected", expected)]
        .into_iter()
        .find(|(_, buffer)| !buffer.format.is_float())
        .map(|(role, buffer)| {
            format!(
                "{} needs float buffers, but {role} buffer `{}` is {}",
                rule.name(),
                buffer.name,
                buffer.format
            )
        })
}

/// Evaluates every rule of `pipeline.results`. `contents[i]` holds buffer
/// `i`'s bytes after the dispatch; buffers without an entry are taken to
/// hold their initial data.
pub fn check_results<B: AsRef<[u8]>>(pipeline: &Pipeline, contents: &[B]) -> Vec<RuleOutcome> {
    pipeline
        .results
        .iter()
        .map(|result| check_result(pipeline, contents, result))
        .collect()
}

fn check_result<B: AsRef<[u8]>>(
    pipeline: &Pipeline,
    contents: &[B],
    result: &ResultRule,
) -> RuleOutcome {
    let mut outcome = RuleOutcome::new(result);
    match operands(pipeline, contents, result) {
        Ok((format, expected, actual)) => compare(&mut outcome, format, expected, actual),
        Err(problem) => outcome.problem = Some(problem),
    }
    outcome.passed = outcome.problem.is_none()
        && outcome.size_mismatch.is_none()
        && outcome.total_mismatches == 0;
    outcome
}

/// The comparison format and the expected and actual bytes.
fn operands<'a, B: AsRef<[u8]>>(
    pipeline: &'a Pipeline,
    contents: &'a [B],
    result: &ResultRule,
) -> Result<(Format, &'a [u8], &'a [u8]), String> {
    let find = |name: &str| {
        pipeline
            .buffer_index(name)
            .ok_or_else(|| format!("no buffer named `{name}`"))
    };
    let (expected, actual) = (find(&result.expected)?, find(&result.actual)?);
    let (expected_desc, actual_desc) = (&pipeline.buffers[expected], &pipeline.buffers[actual]);
    if let Some(problem) = format_problem(result.rule, actual_desc, expected_desc) {
        return Err(problem);
    }
    Ok((
        expected_desc.format,
        pipeline.contents(contents, expected),
        pipeline.contents(contents, actual),
    ))
}

fn compare(outcome: &mut RuleOutcome, format: Format, expected: &[u8], actual: &[u8]) {
    if expected.len() != actual.len() {
        outcome.size_mismatch = Some((expected.len(), actual.len()));
    }
    let pairs = format.elements(expected).zip(format.elements(actual));
    for (index, (e, a)) in pairs.enumerate() {
        outcome.compared += 1;
        if let Err(detail) = judge(outcome.rule, format, e, a) {
            outcome.record(Mismatch {
                index,
                expected: format.describe_bits(e),
                actual: format.describe_bits(a),
                detail,
            });
        }
    }
}

/// Whether actual element bits `a` satisfy the rule against expected `e`;
/// on failure, how far apart they are where the rule measures that.
fn judge(rule: Rule, format: Format, e: u64, a: u64) -> Result<(), Option<String>> {
    let denorm = match rule {
        Rule::BufferExact => DenormMode::Preserve,
        Rule::BufferFloatUlp { denorm, .. } | Rule::BufferFloatEpsilon { denorm, .. } => denorm,
    };
    let flushed = || judge_bits(rule, format, flush(format, e), flush(format, a));
    match denorm {
        DenormMode::Preserve => judge_bits(rule, format, e, a),
        DenormMode::Ftz => flushed(),
        DenormMode::Any => {
            judge_bits(rule, format, e, a).or_else(|first| flushed().map_err(|_| first))
        }
    }
}

/// A subnormal float's bits made a zero of the same sign.
fn flush(format: Format, bits: u64) -> u64 {
    let (exponent_shift, sign) = match format.size() {
        2 => (10, 1u64 << 15),
        4 => (23, 1 << 31),
        _ => (52, 1 << 63),
    };
    let exponent_mask = (sign - 1) >> exponent_shift << exponent_shift;
    if format.is_float() && bits & exponent_mask == 0 {
        bits & sign
    } else {
        bits
    }
}

fn judge_bits(rule: Rule, format: Format, e: u64, a: u64) -> Result<(), Option<String>> {
    let values = format.float_value(e).zip(format.float_value(a));
    if let Some((ev, av)) = values
        && (ev.is_nan() || av.is_nan())
    {
        return if ev.is_nan() && av.is_nan() {
            Ok(())
        } else {
            Err(None)
        };
    }
    match rule {
        Rule::BufferExact => (e == a).then_some(()).ok_or(None),
        Rule::BufferFloatUlp { ulpt, .. } => {
            let distance = ulp_distance(format, e, a);
            (distance <= u128::from(ulpt))
                .then_some(())
                .ok_or_else(|| Some(format!("{distance} ulp")))
        }
        Rule::BufferFloatEpsilon { epsilon, .. } => {
            let (ev, av) = values.ok_or(None)?;
            let difference = (av - ev).abs();
            (ev == av || difference <= epsilon)
                .then_some(())
                .ok_or_else(|| Some(format!("off by {}", format.describe_float(difference))))
        }
    }
}

/// The number of representable values between two floats of `format`,
/// through the usual map of sign-magnitude bits onto ordered integers (so
/// that -0.0 and +0.0 are 0 apart).
pub(crate) fn ulp_distance(format: Format, e: u64, a: u64) -> u128 {
    let sign = 1u64 << (8 * format.size() - 1);
    let ordered = |bits: u64| {
        let magnitude = i128::from(bits & (sign - 1));
        if bits & sign == 0 {
            magnitude
        } else {
            -magnitude
        }
    };
    (ordered(a) - ordered(e)).unsigned_abs()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn denormals_flush_to_signed_zero() {
        assert_eq!(flush(Format::Float32, 0x0000_0001), 0);
        assert_eq!(flush(Format::Float32, 0x8040_0000), 0x8000_0000);
        assert_eq!(flush(Format::Float32, 0x0080_0000), 0x0080_0000);
        assert_eq!(flush(Format::Float16, 0x83FF), 0x8000);
        assert_eq!(flush(Format::Float64, 1), 0);
        assert_eq!(flush(Format::Int32, 1), 1);
        let ulp = |denorm| Rule::BufferFloatUlp { ulpt: 0, denorm };
        // Expected a subnormal, the device flushed it.
        assert!(judge(ulp(DenormMode::Any), Format::Float32, 5, 0).is_ok());
        assert!(judge(ulp(DenormMode::Ftz), Format::Float32, 5, 0).is_ok());
        assert!(judge(ulp(DenormMode::Preserve), Format::Float32, 5, 0).is_err());
        // Exact subnormals pass under every mode but FTZ keeps them equal too.
        assert!(judge(ulp(DenormMode::Preserve), Format::Float32, 5, 5).is_ok());
        assert!(judge(ulp(DenormMode::Ftz), Format::Float32, 5, 7).is_ok());
    }

    #[test]
    fn ulp_distance_across_zero() {
        let f32_bits = |v: f32| u64::from(v.to_bits());
        let tiny = f32_bits(f32::from_bits(1));
        let minus_tiny = f32_bits(-f32::from_bits(1));
        assert_eq!(
            ulp_distance(Format::Float32, f32_bits(0.0), f32_bits(-0.0)),
            0
        );
        assert_eq!(ulp_distance(Format::Float32, minus_tiny, tiny), 2);
        assert_eq!(
            ulp_distance(Format::Float32, f32_bits(1.0), f32_bits(1.0 + f32::EPSILON)),
            1
        );
        assert_eq!(ulp_distance(Format::Float16, 0x8001, 0x0002), 3);
        assert_eq!(ulp_distance(Format::Float16, 0x7BFF, 0x7C00), 1);
    }

    #[test]
    fn ulp_distance_spans_the_whole_f64_range() {
        let max = f64::MAX.to_bits();
        let min = f64::MIN.to_bits();
        assert_eq!(ulp_distance(Format::Float64, min, max), 2 * u128::from(max));
    }
}
