//! Result rules: passing and failing comparisons with the exact mismatch
//! lists and reports.

use expect_test::expect;
use lockstep_pipeline::{
    DenormMode, MAX_LISTED_MISMATCHES, Mismatch, Pipeline, ResultRule, Rule, RuleOutcome,
    check_results,
};

use crate::pipeline;

/// Little-endian bytes of 32-bit patterns.
fn words(bits: &[u32]) -> Vec<u8> {
    bits.iter().flat_map(|b| b.to_le_bytes()).collect()
}

fn halves(bits: &[u16]) -> Vec<u8> {
    bits.iter().flat_map(|b| b.to_le_bytes()).collect()
}

/// A pipeline with buffer `Actual` (given format, filled with zeros of
/// `size` bytes), buffer `Expected` and one result rule.
fn rule_pipeline(format: &str, size: usize, expected: &str, rule: &str) -> Pipeline {
    pipeline(&format!(
        "Buffers:\n  - {{ Name: Actual, Format: {format}, FillSize: {size} }}\n  \
         - {{ Name: Expected, Format: {format}, Data: {expected} }}\n\
         Results:\n  - {{ Result: R, {rule}, Actual: Actual, Expected: Expected }}\n"
    ))
}

/// Runs the single rule with `actual` as the Actual buffer's contents.
fn outcome(p: &Pipeline, actual: Vec<u8>) -> RuleOutcome {
    let expected = p.buffers[1].data.clone();
    let mut outcomes = check_results(p, &[actual, expected]);
    assert_eq!(outcomes.len(), 1);
    outcomes.remove(0)
}

fn mismatch(index: usize, expected: &str, actual: &str, detail: Option<&str>) -> Mismatch {
    Mismatch {
        index,
        expected: expected.into(),
        actual: actual.into(),
        detail: detail.map(Into::into),
    }
}

#[test]
fn exact_passes_and_fails() {
    let p = rule_pipeline("Int32", 16, "[1, 2, 3, -4]", "Rule: BufferExact");
    let pass = outcome(&p, words(&[1, 2, 3, (-4i32) as u32]));
    assert!(pass.passed);
    assert_eq!(pass.compared, 4);
    expect!["result R (BufferExact): passed (4 elements)\n"].assert_eq(&pass.render());

    let fail = outcome(&p, words(&[1, 12, 3, 4]));
    assert!(!fail.passed);
    assert_eq!(fail.total_mismatches, 2);
    assert_eq!(fail.size_mismatch, None);
    assert_eq!(
        fail.mismatches,
        [mismatch(1, "2", "12", None), mismatch(3, "-4", "4", None)]
    );
    expect![[r#"
        result R (BufferExact): 2 of 4 elements differ
          [1] expected 2, actual 12
          [3] expected -4, actual 4
    "#]]
    .assert_eq(&fail.render());
}

#[test]
fn exact_floats_are_bit_exact_but_nan_equals_nan() {
    let p = rule_pipeline("Float32", 16, "[.nan, 0.0, 1.0, 2.5]", "Rule: BufferExact");
    // A NaN with another payload, -0.0, a NaN, and 2.5 exactly.
    let fail = outcome(
        &p,
        words(&[0x7FC0_0001, 0x8000_0000, 0x7FC0_0000, 0x4020_0000]),
    );
    assert_eq!(
        fail.mismatches,
        [
            mismatch(1, "0.0", "-0.0", None),
            mismatch(2, "1.0", ".nan", None)
        ]
    );
}

#[test]
fn exact_reads_actual_in_the_expected_format() {
    let p = pipeline(
        "Buffers:\n  - { Name: A, Format: UInt32, Data: [0x00020001] }\n  \
         - { Name: E, Format: Int16, Data: [1, 3] }\n\
         Results:\n  - { Result: Mixed, Rule: BufferExact, Actual: A, Expected: E }\n",
    );
    let outcomes = check_results::<Vec<u8>>(&p, &[]);
    assert_eq!(outcomes[0].compared, 2);
    assert_eq!(outcomes[0].mismatches, [mismatch(1, "3", "2", None)]);
}

#[test]
fn sizes_must_match() {
    let p = rule_pipeline("Int32", 16, "[1, 2, 3, 4]", "Rule: BufferExact");
    let short = outcome(&p, words(&[1, 2, 3]));
    assert!(!short.passed);
    assert_eq!(short.size_mismatch, Some((16, 12)));
    assert_eq!(short.total_mismatches, 0);
    expect!["result R (BufferExact): expected 16 bytes, actual 12 bytes\n"]
        .assert_eq(&short.render());

    let long_and_wrong = outcome(&p, words(&[1, 2, 0, 4, 5]));
    expect![[r#"
        result R (BufferExact): expected 16 bytes, actual 20 bytes; 1 of 4 elements differ
          [2] expected 3, actual 0
    "#]]
    .assert_eq(&long_and_wrong.render());
}

#[test]
fn ulp_rule_on_float32() {
    let p = rule_pipeline(
        "Float32",
        32,
        "[1.0, 0.0, -0.0, 1e-45, .nan, .inf, 1.0, 2.0]",
        "Rule: BufferFloatULP, ULPT: 2",
    );
    let actual = words(&[
        0x3F80_0002, // 1.0 + 2 ulp
        0x8000_0000, // -0.0: 0 ulp from 0.0
        0x0000_0001, // the smallest subnormal: 1 ulp from -0.0
        0x8000_0001, // minus the smallest subnormal: 2 ulp across zero
        0x7FC0_0000, // NaN matches NaN
        0x7F7F_FFFF, // the largest finite value: 1 ulp below infinity
        0x3F80_0003, // 1.0 + 3 ulp
        0x7FC0_0000, // NaN does not match a number
    ]);
    let result = outcome(&p, actual);
    assert_eq!(result.compared, 8);
    assert_eq!(
        result.mismatches,
        [
            mismatch(6, "1.0", "1.0000004", Some("3 ulp")),
            mismatch(7, "2.0", ".nan", None),
        ]
    );
    expect![[r#"
        result R (BufferFloatULP, ULPT 2): 2 of 8 elements differ
          [6] expected 1.0, actual 1.0000004 (3 ulp)
          [7] expected 2.0, actual .nan
    "#]]
    .assert_eq(&result.render());
}

#[test]
fn ulp_rule_on_float16_and_float64() {
    let p = rule_pipeline(
        "Float16",
        6,
        "[0x3C00, 0x8000, 0x7E00]",
        "Rule: BufferFloatULP, ULPT: 1",
    );
    assert!(outcome(&p, halves(&[0x3C01, 0x0001, 0x7C01])).passed);
    let result = outcome(&p, halves(&[0x3C02, 0x8001, 0x7C00]));
    expect![[r#"
        result R (BufferFloatULP, ULPT 1): 2 of 3 elements differ
          [0] expected 0x3C00 (1.0), actual 0x3C02 (1.0019531) (2 ulp)
          [2] expected 0x7E00 (.nan), actual 0x7C00 (.inf)
    "#]]
    .assert_eq(&result.render());

    let p = rule_pipeline(
        "Float64",
        16,
        "[-1.0, 1e300]",
        "Rule: BufferFloatULP, ULPT: 0",
    );
    let next_below_one = (-1.0f64).to_bits() - 1;
    let actual: Vec<u8> = [next_below_one, 1e300f64.to_bits()]
        .iter()
        .flat_map(|b| b.to_le_bytes())
        .collect();
    let result = outcome(&p, actual);
    assert_eq!(
        result.mismatches,
        [mismatch(0, "-1.0", "-0.9999999999999999", Some("1 ulp"))]
    );
}

#[test]
fn epsilon_rule() {
    let p = rule_pipeline(
        "Float32",
        24,
        "[1.0, .inf, .nan, 0.0, -.inf, 5.0]",
        "Rule: BufferFloatEpsilon, Epsilon: 0.001",
    );
    let actual = words(&[
        1.0005f32.to_bits(),
        f32::INFINITY.to_bits(),
        f32::NAN.to_bits(),
        0.002f32.to_bits(),
        f32::INFINITY.to_bits(),
        f32::NAN.to_bits(),
    ]);
    let result = outcome(&p, actual);
    expect![[r#"
        result R (BufferFloatEpsilon, Epsilon 0.001): 3 of 6 elements differ
          [3] expected 0.0, actual 0.002 (off by 0.002)
          [4] expected -.inf, actual .inf (off by .inf)
          [5] expected 5.0, actual .nan
    "#]]
    .assert_eq(&result.render());
}

#[test]
fn mismatches_are_listed_up_to_the_cap_and_all_counted() {
    let zeros = format!("[{}]", ["0"; 100].join(", "));
    let p = rule_pipeline("UInt16", 200, &zeros, "Rule: BufferExact");
    let result = outcome(&p, halves(&[7; 100]));
    assert_eq!(result.total_mismatches, 100);
    assert_eq!(result.mismatches.len(), MAX_LISTED_MISMATCHES);
    assert_eq!(
        result.mismatches.last(),
        Some(&mismatch(31, "0", "7", None))
    );
    let report = result.render();
    assert_eq!(report.lines().count(), 1 + 32 + 1);
    assert!(report.starts_with(
        "result R (BufferExact): 100 of 100 elements differ\n  [0] expected 0, actual 7\n"
    ));
    assert!(report.ends_with("  [31] expected 0, actual 7\n  ... and 68 more\n"));
}

#[test]
fn missing_contents_mean_initial_data() {
    let p = rule_pipeline("Int16", 4, "[0, 0]", "Rule: BufferExact");
    let outcomes = check_results::<Vec<u8>>(&p, &[]);
    assert!(outcomes[0].passed);
    let p = rule_pipeline("Int16", 4, "[0, 1]", "Rule: BufferExact");
    let outcomes = check_results(&p, &[halves(&[0, 1])]);
    assert!(outcomes[0].passed);
}

#[test]
fn rules_that_cannot_run_say_why() {
    let mut p = rule_pipeline("Int16", 4, "[0, 0]", "Rule: BufferExact");
    p.results.push(ResultRule {
        name: "Ghost".into(),
        rule: Rule::BufferExact,
        actual: "Nope".into(),
        expected: "Expected".into(),
    });
    p.results.push(ResultRule {
        name: "Ints".into(),
        rule: Rule::BufferFloatUlp {
            ulpt: 1,
            denorm: DenormMode::Preserve,
        },
        actual: "Actual".into(),
        expected: "Expected".into(),
    });
    let reports: String = check_results::<Vec<u8>>(&p, &[])
        .iter()
        .map(RuleOutcome::render)
        .collect();
    expect![[r#"
        result R (BufferExact): passed (2 elements)
        result Ghost (BufferExact): no buffer named `Nope`
        result Ints (BufferFloatULP, ULPT 1): BufferFloatULP needs float buffers, but Actual buffer `Actual` is Int16
    "#]]
    .assert_eq(&reports);
}
