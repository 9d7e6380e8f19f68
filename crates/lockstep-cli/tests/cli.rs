//! The `lockstep` binary as a user runs it: exit codes, output, messages.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn lockstep(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lockstep"))
        .current_dir(repo())
        .args(args)
        .output()
        .expect("run lockstep")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A scratch directory for one test, removed with what it holds when the
/// test ends (passing or not).
struct Scratch(PathBuf);

impl std::ops::Deref for Scratch {
    type Target = Path;

    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn scratch(name: &str) -> Scratch {
    let dir = std::env::temp_dir().join(format!("lockstep-cli-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    Scratch(dir)
}

const EXAMPLE: [&str; 3] = [
    "run",
    "examples/compact_write.yaml",
    "examples/compact_write.hlsl",
];

#[test]
fn example_passes_and_prints_buffers() {
    let o = lockstep(&EXAMPLE);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.starts_with("---\nBuffers:\n  - Name:            Input\n"),
        "{stdout}"
    );
    assert!(stderr(&o).contains("passed"), "{}", stderr(&o));
}

#[test]
fn output_file_parses_back() {
    let dir = scratch("out");
    let out = dir.join("out.yaml");
    let o = lockstep(&[
        EXAMPLE[0],
        EXAMPLE[1],
        EXAMPLE[2],
        "--wave-size",
        "4",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = std::fs::read_to_string(&out).unwrap();
    // The buffers read back as a pipeline of their own.
    let parsed = lockstep_pipeline::parse(&text).unwrap();
    assert_eq!(parsed.buffers.len(), 5);
}

/// A pipeline whose one float buffer is written by `shader`, run with
/// `extra` flags; its files live in `dir`.
fn run_floats(dir: &Path, shader: &str, extra: &[&str]) -> Output {
    let pipeline = dir.join("p.yaml");
    std::fs::write(
        &pipeline,
        "Buffers:\n  - { Name: In, Format: Float32, Data: [ 1, 2 ] }\n  \
         - { Name: Out, Format: Float32, FillSize: 12 }\n\
         DescriptorSets:\n  - Resources:\n    \
         - { Name: In, Kind: StructuredBuffer, DirectXBinding: { Register: 0 } }\n    \
         - { Name: Out, Kind: RWStructuredBuffer, DirectXBinding: { Register: 0 } }\n",
    )
    .unwrap();
    let hlsl = dir.join("s.hlsl");
    std::fs::write(
        &hlsl,
        format!(
            "StructuredBuffer<float> In : register(t0);\n\
             RWStructuredBuffer<float> Out : register(u0);\n\
             [numthreads(1, 1, 1)] void main() {{ {shader} }}\n"
        ),
    )
    .unwrap();
    let mut args = vec!["run", pipeline.to_str().unwrap(), hlsl.to_str().unwrap()];
    args.extend_from_slice(extra);
    lockstep(&args)
}

#[test]
fn floats_print_as_offloader_prints_them_or_exactly() {
    let dir = scratch("floats");
    let shader = "Out[0] = In[0] / 3.0; Out[1] = In[1] * 1e10; Out[2] = -In[0] / 0.0;";
    let o = run_floats(&dir, shader, &["-r", "Out"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "---\nBuffers:\n  - Name:            Out\n    Format:          Float32\n    \
         Data:            [ 0.333333, 2e+10, -inf ]\n...\n"
    );
    let o = run_floats(&dir, shader, &["-r", "Out", "--exact", "-o", "-"]);
    assert!(
        stdout(&o).contains("Data:            [ 0.33333334, 20000000000.0, -.inf ]\n"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn binary_buffers_in_and_out() {
    let dir = scratch("binary");
    let input = dir.join("in.bin");
    let values: Vec<u8> = [4.0f32, 8.0].iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(&input, &values).unwrap();
    let out = dir.join("out.bin");
    let buffer = format!("In={}", input.display());
    let shader = "Out[0] = In[0] + In[1]; Out[1] = In[1]; Out[2] = 0.5;";
    let o = run_floats(
        &dir,
        shader,
        &[
            "--buffer",
            &buffer,
            "-r",
            "Out",
            "-o",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let expected: Vec<u8> = [12.0f32, 8.0, 0.5]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    assert_eq!(std::fs::read(&out).unwrap(), expected);
    // Three bytes are no whole float; a name that is not a buffer.
    std::fs::write(&input, [0u8; 3]).unwrap();
    let o = run_floats(&dir, shader, &["--buffer", &buffer]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("buffer `In`: 3 bytes are not a whole number of Float32 elements"),
        "{}",
        stderr(&o)
    );
    let o = run_floats(&dir, shader, &["--buffer", "Inn=x.bin"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("cannot read 'x.bin'"), "{}", stderr(&o));
    let o = run_floats(&dir, shader, &["-r", "Outt"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("-r Outt: the pipeline has no buffer named `Outt`"),
        "{}",
        stderr(&o)
    );
}

/// `check` and `trace` take `--buffer` as `run` does: an index read from
/// the file (100, past `Out`'s three elements) is out of bounds where the
/// pipeline's own (1) is not (a note: D3D12 drops the write, so the check
/// still passes).
#[test]
fn check_and_trace_take_binary_buffers() {
    let dir = scratch("check-binary");
    let input = dir.join("in.bin");
    let values: Vec<u8> = [100.0f32, 8.0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    std::fs::write(&input, &values).unwrap();
    let buffer = format!("In={}", input.display());
    // Writes the pipeline and shader.
    let o = run_floats(&dir, "Out[(uint)In[0]] = 1.0;", &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let (pipeline, hlsl) = (dir.join("p.yaml"), dir.join("s.hlsl"));
    let (pipeline, hlsl) = (pipeline.to_str().unwrap(), hlsl.to_str().unwrap());
    let o = lockstep(&["check", pipeline, hlsl]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let o = lockstep(&["check", pipeline, hlsl, "--buffer", &buffer]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("warning: out-of-bounds-resource"),
        "{}",
        stdout(&o)
    );
    let page = dir.join("t.json");
    let page = page.to_str().unwrap();
    let args = [
        "trace", pipeline, hlsl, "--format", "json", "-o", page, "--buffer",
    ];
    let o = lockstep(&[&args[..], &[buffer.as_str()]].concat());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let trace = std::fs::read_to_string(page).unwrap();
    assert!(trace.contains("out-of-bounds"), "{trace}");
    let o = lockstep(&["check", pipeline, hlsl, "--buffer", "Q=x.bin"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--buffer Q=x.bin"), "{}", stderr(&o));
}

/// LLVM's FileCheck: the newest Debian installation, or `FileCheck` on the
/// PATH. CI installs it; elsewhere the tests that need it say so and pass.
fn filecheck() -> Option<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir("/usr/lib")
        .into_iter()
        .flatten()
        .filter_map(|e| Some(e.ok()?.path().join("bin/FileCheck")))
        .filter(|p| p.is_file() && p.to_string_lossy().contains("/llvm-"))
        .collect();
    found.sort();
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("FileCheck"))
            .find(|p| p.is_file())
    });
    let found = found.pop().or(on_path);
    if found.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "LLVM's FileCheck is required in CI (Debian: llvm-14-tools)"
        );
        eprintln!("FileCheck not found: install LLVM's tools to run this test");
    }
    found
}

#[test]
fn real_filecheck_matches_run_output() {
    let Some(filecheck) = filecheck() else {
        return;
    };
    let dir = scratch("filecheck");
    let o = run_floats(
        &dir,
        "Out[0] = In[0] * 13.5; Out[1] = In[1] - 2.0; Out[2] = asfloat(0x7FC00000u);",
        &[],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // CHECK lines as upstream writes them against offloader's output.
    let checks = dir.join("checks.txt");
    std::fs::write(
        &checks,
        "CHECK: Name: In\nCHECK-NEXT: Format: Float32\nCHECK-NEXT: Data: [ 1, 2 ]\n\
         CHECK: Name: Out\nCHECK-NEXT: Format: Float32\nCHECK-NEXT: Data: [ 13.5, 0, nan ]\n\
         CHECK-NOT: .inf\n",
    )
    .unwrap();
    let run = |input: &[u8]| {
        use std::io::Write as _;
        let mut child = Command::new(&filecheck)
            .arg(&checks)
            .stdin(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("run FileCheck");
        child.stdin.take().unwrap().write_all(input).unwrap();
        child.wait_with_output().unwrap()
    };
    let checked = run(&o.stdout);
    assert!(checked.status.success(), "{}", stderr(&checked));
    // The exact form does not match offloader's CHECK lines.
    let exact = run_floats(
        &dir,
        "Out[0] = In[0] * 13.5; Out[1] = In[1] - 2.0; Out[2] = asfloat(0x7FC00000u);",
        &["--exact"],
    );
    assert!(!run(&exact.stdout).status.success());
}

#[test]
fn failing_rule_exits_1_with_a_diff() {
    let dir = scratch("fail");
    let yaml = std::fs::read_to_string(repo().join(EXAMPLE[1])).unwrap();
    // Expect one wrong counter value.
    let broken = yaml.replace(
        "  - Name: ExpectedCounter\n    Format: UInt32\n    Data: [ 42, 43 ]",
        "  - Name: ExpectedCounter\n    Format: UInt32\n    Data: [ 42, 44 ]",
    );
    assert_ne!(broken, yaml);
    let path = dir.join("broken.yaml");
    std::fs::write(&path, broken).unwrap();
    let o = lockstep(&["run", path.to_str().unwrap(), EXAMPLE[2]]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("[1] expected 44, actual 43"), "{err}");
}

#[test]
fn bad_wave_size_exits_2() {
    for w in ["3", "256"] {
        let o = lockstep(&[EXAMPLE[0], EXAMPLE[1], EXAMPLE[2], "--wave-size", w]);
        assert_eq!(o.status.code(), Some(2));
        assert!(
            stderr(&o).contains(&format!("wave size {w} is not supported")),
            "{}",
            stderr(&o)
        );
    }
}

/// More worker threads than a run may have: a clear error at once, before
/// any thread starts (starting 100,000 would take seconds and fail on the
/// system's limits). The largest count is accepted.
#[test]
fn too_many_threads_exit_2() {
    for command in ["run", "test", "check"] {
        let args: &[&str] = match command {
            "run" => &[EXAMPLE[0], EXAMPLE[1], EXAMPLE[2]],
            "check" => &["check", EXAMPLE[1], EXAMPLE[2]],
            _ => &["test", "tests/offload"],
        };
        let o = lockstep(&[args, &["--threads", "100000"]].concat());
        assert_eq!(o.status.code(), Some(2), "{command}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("--threads 100000: at most 1024 worker threads"),
            "{command}: {}",
            stderr(&o)
        );
    }
    let o = lockstep(&[EXAMPLE[0], EXAMPLE[1], EXAMPLE[2], "--threads", "1024"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // More threads than wave sizes: the six run at once.
    let o = lockstep(&["check", EXAMPLE[1], EXAMPLE[2], "--threads", "8"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).starts_with("clean: no findings at wave sizes 4, 8, 16, 32, 64, 128"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn bad_yaml_exits_2_with_location() {
    let dir = scratch("yaml");
    let path = dir.join("bad.yaml");
    std::fs::write(
        &path,
        "---\nBuffers:\n  - Name: A\n    Format: Int8\n    Data: [1]\n",
    )
    .unwrap();
    let o = lockstep(&["run", path.to_str().unwrap(), EXAMPLE[2]]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("bad.yaml:4:"), "{err}");
    assert!(err.contains("Int8"), "{err}");
}

#[test]
fn missing_file_exits_2() {
    let o = lockstep(&["run", "examples/compact_write.yaml", "nope.hlsl"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("cannot read shader 'nope.hlsl'"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn compile_error_exits_2_with_a_caret() {
    let dir = scratch("compile");
    let path = dir.join("bad.hlsl");
    std::fs::write(
        &path,
        "[numthreads(1,1,1)]\nvoid main() {\n    uint x = undeclared;\n}\n",
    )
    .unwrap();
    let o = lockstep(&["run", EXAMPLE[1], path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("bad.hlsl:3:14: error:"), "{err}");
    assert!(err.contains("^"), "{err}");
}

#[test]
fn dxc_style_flags() {
    let o = lockstep(&[
        EXAMPLE[0],
        EXAMPLE[1],
        EXAMPLE[2],
        "-T",
        "cs_6_2",
        "-E",
        "main",
        "-D",
        "UNUSED=1",
        "-enable-16bit-types",
        "--threads",
        "1",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = lockstep(&[EXAMPLE[0], EXAMPLE[1], EXAMPLE[2], "-T", "ps_6_0"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("'numthreads' applies to compute shaders, and this is a pixel shader"),
        "{}",
        stderr(&o)
    );
    let o = lockstep(&[EXAMPLE[0], EXAMPLE[1], EXAMPLE[2], "-T", "gs_6_0"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("a stage Lockstep does not run"),
        "{}",
        stderr(&o)
    );
    // Flags that do not change what a shader computes, and HLSL 202x.
    let o = lockstep(&[
        EXAMPLE[0],
        EXAMPLE[1],
        EXAMPLE[2],
        "-Zi",
        "-Qembed_debug",
        "-O0",
        "-HV",
        "202x",
        "-o",
        "-",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // As in DXC, 16-bit types need shader model 6.2.
    let o = lockstep(&[
        EXAMPLE[0],
        EXAMPLE[1],
        EXAMPLE[2],
        "-T",
        "cs_6_1",
        "-enable-16bit-types",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains(
            "-enable-16bit-types needs shader model 6.2 or later, but the profile is cs_6_1"
        ),
        "{}",
        stderr(&o)
    );
    // Every command lists the flags in DXC's spelling.
    for command in ["run", "check", "info"] {
        let help = stdout(&lockstep(&[command, "--help"]));
        for flag in [
            "-T PROFILE",
            "-E NAME",
            "-enable-16bit-types",
            "-HV VERSION",
            "-WX",
            "-Qembed_debug",
        ] {
            assert!(help.contains(flag), "{command}: {flag}\n{help}");
        }
        assert!(
            !help.contains("--enable-16bit-types") && !help.contains("--HV"),
            "{help}"
        );
    }
}

#[test]
fn warnings_are_errors_under_wx() {
    let dir = scratch("wx");
    // `WaveAllSum` is the older name: a deprecation warning.
    let o = run_floats(&dir, "Out[0] = WaveAllSum(In[0]);", &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains("warning"), "{}", stderr(&o));
    let o = run_floats(&dir, "Out[0] = WaveAllSum(In[0]);", &["-WX"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("warnings are errors (-WX)"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn info_prints_the_wave_size_and_why() {
    let o = lockstep(&[
        "info",
        "examples/tile_minmax_one_wave.hlsl",
        "-E",
        "ComputeMinMaxZ",
        "--wave-size",
        "4",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains("wave size         8 (the nearest supported size within [WaveSize(8, 64)]"),
        "{stdout}"
    );
    assert!(
        stdout.contains("per group         1 wave, 8 threads"),
        "{stdout}"
    );
    let o = lockstep(&["info", "examples/compact_write.hlsl", "--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("\"wave_size\": 32"), "{stdout}");
    assert!(stdout.contains("\"register\": \"u1\""), "{stdout}");
}

#[test]
fn bad_device_flags_exit_2() {
    for (flag, value, message) in [
        (
            "--wave-sizes",
            "8..4",
            "the device's wave size range 8..4 is empty",
        ),
        ("--wave-sizes", "eight", "--wave-sizes: expected MIN..MAX"),
        (
            "--prefer-wave-size",
            "huge",
            "--prefer-wave-size: expected nearest, small or large",
        ),
    ] {
        let o = lockstep(&[EXAMPLE[0], EXAMPLE[1], EXAMPLE[2], flag, value]);
        assert_eq!(o.status.code(), Some(2));
        assert!(stderr(&o).contains(message), "{}", stderr(&o));
    }
    // A device that cannot run the shader's [WaveSize].
    let o = lockstep(&[
        "run",
        "examples/tile_minmax_one_wave.yaml",
        "examples/tile_minmax_one_wave.hlsl",
        "--wave-size",
        "128",
        "--wave-sizes",
        "128..128",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("the shader requires [WaveSize(8, 64)], but the device supports wave sizes 128..128 only"), "{}", stderr(&o));
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn offload_tests_pass() {
    // A FileCheck that cannot run fails the tests that need it.
    let o = lockstep(&[
        "test",
        "tests/offload",
        "--filecheck",
        "/nonexistent/FileCheck",
    ]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{}", stderr(&o));
    assert!(
        out.contains("FAIL: tests/offload/filecheck_output.test: FileCheck failed:\n  cannot run FileCheck '/nonexistent/FileCheck'"),
        "{out}"
    );
    let Some(filecheck) = filecheck() else {
        return;
    };
    let o = lockstep(&[
        "test",
        "tests/offload",
        "--filecheck",
        filecheck.to_str().unwrap(),
    ]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{}", stderr(&o));
    assert_eq!(
        out.lines().last(),
        Some("19 passed, 0 failed, 2 skipped"),
        "{out}"
    );
    for line in [
        "PASS: tests/offload/wave_match.test",
        "PASS: tests/offload/wave_size_8.test",
        "PASS: tests/offload/expected_failure.test",
        "XFAIL: tests/offload/xfail_vector_and.test",
        "PASS: tests/offload/filecheck_output.test",
        "PASS: tests/offload/filecheck_floats.test",
        "SKIP: tests/offload/requires_vulkan.test: requires Vulkan && !Metal",
        "SKIP: tests/offload/unsupported_group_order.test: unsupported: Lockstep",
    ] {
        assert!(out.lines().any(|l| l == line), "{line}\n{out}");
    }
    // In sorted order.
    let paths: Vec<&str> = out.lines().filter_map(|l| l.split(": ").nth(1)).collect();
    let mut sorted = paths.clone();
    sorted.sort();
    assert_eq!(paths, sorted);
    // A device without 8-lane waves skips the [WaveSize(8)] test.
    let o = lockstep(&[
        "test",
        "tests/offload",
        "--wave-sizes",
        "16..64",
        "--wave-size",
        "16",
        "--filecheck",
        filecheck.to_str().unwrap(),
    ]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(
        out.contains("SKIP: tests/offload/wave_size_8.test: requires WaveSize_8\n"),
        "{out}"
    );
    assert_eq!(
        out.lines().last(),
        Some("18 passed, 0 failed, 3 skipped"),
        "{out}"
    );
}

#[test]
fn failing_offload_tests_exit_1_and_say_why() {
    let o = lockstep(&["test", "tests/offload-failing", "--threads", "1"]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{}", stderr(&o));
    assert_eq!(
        out.lines().last(),
        Some("0 passed, 4 failed, 0 skipped"),
        "{out}"
    );
    for text in [
        "FAIL: tests/offload-failing/wrong_expected.test: result Test (BufferExact): 1 of 4 elements differ\n    [3] expected 7, actual 6\n",
        "FAIL: tests/offload-failing/compile_error.test: tests/offload-failing/compile_error.test/source.hlsl:5:30: error: use of undeclared identifier 'undeclared'\n",
        "FAIL: tests/offload-failing/binding_error.test: tests/offload-failing/binding_error.test/source.hlsl:2:26: error: resource 'Out' is a RWStructuredBuffer at u1",
        "XPASS: tests/offload-failing/xpass.test\n",
    ] {
        assert!(out.contains(text), "{text}\n{out}");
    }
    // One file, and JSON.
    let o = lockstep(&[
        "test",
        "tests/offload-failing/wrong_expected.test",
        "tests/offload/wave_match.test",
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(json["passed"], 1);
    assert_eq!(json["failed"], 1);
    assert_eq!(json["skipped"], 0);
    assert_eq!(json["tests"][0]["result"], "FAIL");
    assert_eq!(
        json["tests"][0]["reason"],
        "result Test (BufferExact): 1 of 4 elements differ\n  [3] expected 7, actual 6"
    );
    assert_eq!(json["tests"][1]["path"], "tests/offload/wave_match.test");
    assert_eq!(json["tests"][1]["result"], "PASS");
    assert_eq!(json["tests"][1]["reason"], serde_json::Value::Null);
}

#[test]
fn offload_test_usage_errors_exit_2() {
    let o = lockstep(&["test", "tests/offload", "no/such.test"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("cannot read 'no/such.test'"),
        "{}",
        stderr(&o)
    );
    let o = lockstep(&["test", "examples"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("no .test files found"),
        "{}",
        stderr(&o)
    );
    let o = lockstep(&["test", "tests/offload", "--format", "xml"]);
    assert_eq!(o.status.code(), Some(2));
    let o = lockstep(&["test"]);
    assert_eq!(o.status.code(), Some(2));
    let o = lockstep(&["test", "--help"]);
    let help = stdout(&o);
    for flag in ["--wave-size", "--threads", "--format", "XFAIL", "XPASS"] {
        assert!(help.contains(flag), "{flag}\n{help}");
    }
}

#[test]
fn byte_order_marks_and_bytes_that_are_not_utf8() {
    let dir = scratch("utf8");
    let pipeline = dir.join("p.yaml");
    std::fs::write(
        &pipeline,
        "\u{feff}Buffers:\n  - { Name: Out, Format: UInt32, FillSize: 4 }\nDescriptorSets:\n  \
         - Resources:\n    - { Name: Out, Kind: RWStructuredBuffer, DirectXBinding: { Register: 0 } }\n",
    )
    .unwrap();
    let shader = dir.join("s.hlsl");
    let mut text = b"\xEF\xBB\xBFRWStructuredBuffer<uint> Out : register(u0);\n// caf\xE9\n#if 0\n\xFF\xFE\n#endif\n".to_vec();
    text.extend_from_slice(b"[numthreads(1, 1, 1)] void main() { Out[0] = 5; }\n");
    std::fs::write(&shader, &text).unwrap();
    let o = lockstep(&["run", pipeline.to_str().unwrap(), shader.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("Data:            [ 5 ]"),
        "{}",
        stdout(&o)
    );
    // Elsewhere such a byte is an error at its line and column.
    text.extend_from_slice(b"static const uint x = 1 \xFF;\n");
    std::fs::write(&shader, &text).unwrap();
    let o = lockstep(&["run", pipeline.to_str().unwrap(), shader.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("s.hlsl:7:25: error: bytes that are not valid UTF-8"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn json_output_carries_compile_errors() {
    let dir = scratch("json");
    let o = run_floats(&dir, "Out[0] = nope;", &[]);
    assert_eq!(o.status.code(), Some(2));
    let shader = dir.join("s.hlsl");
    let pipeline = dir.join("p.yaml");
    for command in ["check", "info", "run"] {
        let mut args = vec![command];
        if command != "info" {
            args.push(pipeline.to_str().unwrap());
        }
        args.extend([shader.to_str().unwrap(), "--format", "json"]);
        let o = lockstep(&args);
        assert_eq!(o.status.code(), Some(2), "{command}");
        let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let error = &json["errors"][0];
        assert_eq!(
            error["message"], "use of undeclared identifier 'nope'",
            "{command}"
        );
        assert_eq!(error["line"], 3, "{command}");
        assert_eq!(error["severity"], "error", "{command}");
    }
}

/// `run --format json`: the wave size, the buffer `-r` names with exact
/// values, and each rule's outcome.
#[test]
fn run_prints_json() {
    let o = lockstep(&[
        "run",
        "examples/compact_write.yaml",
        "examples/compact_write.hlsl",
        "--format",
        "json",
        "-r",
        "Output",
    ]);
    let json: serde_json::Value =
        serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", stdout(&o)));
    assert_eq!(json["wave_size"], 32);
    assert_eq!(json["errors"], serde_json::json!([]));
    let buffers = json["buffers"].as_array().unwrap();
    assert_eq!(buffers.len(), 1);
    assert_eq!(buffers[0]["name"], "Output");
    let data = buffers[0]["data"].as_array().unwrap();
    assert_eq!(data[..3], [1, 2, 4]);
    let results = json["results"].as_array().unwrap();
    assert_eq!(results.len(), 2);
    assert!(results.iter().all(|r| r["passed"] == true), "{results:?}");
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn the_preferred_wave_size_moves_into_the_supported_range() {
    let info = |extra: &[&str]| {
        let mut args = vec!["info", "examples/compact_write.hlsl"];
        args.extend_from_slice(extra);
        lockstep(&args)
    };
    let o = info(&["--wave-sizes", "64..128"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("wave size         64 "),
        "{}",
        stdout(&o)
    );
    let o = info(&["--wave-sizes", "4..16"]);
    assert!(
        stdout(&o).contains("wave size         16 "),
        "{}",
        stdout(&o)
    );
    // Asked for explicitly, a size outside the range stays an error.
    let o = info(&["--wave-sizes", "64..128", "--wave-size", "32"]);
    assert_eq!(o.status.code(), Some(2));
}

/// `run PIPELINE VS PS` draws, as offloader does: the render target as a
/// PNG with `-r Target -o FILE.png`; each stage's entry and profile have
/// flags of their own.
#[test]
fn draws_take_a_vertex_and_a_pixel_shader() {
    let dir = scratch("draw");
    let png = dir.join("triangle.png");
    let hlsl = "examples/draw/triangle.hlsl";
    let o = lockstep(&[
        "run",
        "examples/draw/triangle.yaml",
        hlsl,
        hlsl,
        "-r",
        "Target",
        "-o",
        png.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        std::fs::read(&png).unwrap()
            == std::fs::read(repo().join("docs/images/triangle.png")).unwrap(),
        "the PNG differs from docs/images/triangle.png"
    );
    let draw = ["run", "examples/draw/triangle.yaml", hlsl, hlsl];
    // `--stats`: the times, the target's pixels and each stage's engine.
    let o = lockstep(&[&draw[..], &["--stats", "--wave-size", "8"]].concat());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    for line in [
        "compile: ",
        "draw:    ",
        "pixels:  128 x 128 at wave size 8, ",
        "vertex:  machine code for the whole shader",
        "pixel:   machine code for the whole shader",
    ] {
        assert!(stderr(&o).contains(line), "{line}: {}", stderr(&o));
    }
    let o = lockstep(&[&draw[..], &["--pixel-entry", "VSMain"]].concat());
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("a pixel shader output needs SV_Target or SV_Depth, not 'COLOR'"),
        "{}",
        stderr(&o)
    );
    let o = lockstep(&[&draw[..], &["--vertex-profile", "ps_6_0"]].concat());
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("--vertex-profile ps_6_0: the vertex shader needs a vs_6_x profile"),
        "{}",
        stderr(&o)
    );
    let o = lockstep(&[&draw[..], &["-E", "main"]].concat());
    assert!(
        stderr(&o).contains("use --vertex-entry and --pixel-entry"),
        "{}",
        stderr(&o)
    );
    let o = lockstep(&[
        EXAMPLE[0],
        EXAMPLE[1],
        EXAMPLE[2],
        "--pixel-entry",
        "PSMain",
    ]);
    assert!(
        stderr(&o).contains("--pixel-entry is for a draw"),
        "{}",
        stderr(&o)
    );
    let o = lockstep(&["run", "examples/draw/triangle.yaml", hlsl]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("give it a vertex and a pixel shader"),
        "{}",
        stderr(&o)
    );
    // `run --check` draws once in checked mode.
    let o = lockstep(
        &[
            &draw[..],
            &["--check", "-o", png.to_str().unwrap(), "-r", "Target"],
        ]
        .concat(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("clean: no findings at wave sizes 32"),
        "{}",
        stderr(&o)
    );
    // `check` draws at every wave size and packing.
    let o = lockstep(&["check", "examples/draw/triangle.yaml", hlsl, hlsl]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "clean: no findings at wave sizes 4, 8, 16, 32, 64, 128\n"
    );
}

/// `--engine native` on a shader that gets no machine code (a wave
/// operation on 64-bit values) runs it interpreted, and says so and why;
/// on one that does, it says nothing.
#[test]
fn engine_native_says_when_the_interpreter_runs() {
    let dir = scratch("engine-native");
    let o = run_floats(
        &dir,
        "double d = In[0]; Out[0] = (float)WaveActiveSum(d * 2.0);",
        &["--engine", "native", "--wave-size", "8"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let note = "note: --engine native: the interpreter ran this shader (";
    assert!(stderr(&o).contains(note), "{}", stderr(&o));
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        let why = format!("{note}a wave operation or atomic takes 64-bit values)");
        assert!(stderr(&o).contains(&why), "{}", stderr(&o));
    }
    let o = run_floats(
        &dir,
        "Out[0] = In[0] * 2.0f;",
        &["--engine", "native", "--wave-size", "8"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // Where the CPU lacks AVX2 the interpreter runs either way.
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        assert!(
            !stderr(&o).contains("note: --engine native"),
            "{}",
            stderr(&o)
        );
    }
}

/// `--stats` says when groups run one at a time because a loop may wait
/// for another group's write, and not otherwise.
#[test]
fn stats_name_groups_that_run_one_at_a_time() {
    let dir = scratch("waits");
    let shader = dir.join("ticket.hlsl");
    std::fs::write(
        &shader,
        "RWStructuredBuffer<uint> Ticket : register(u0);\n\
         [numthreads(8, 1, 1)]\n\
         void main(uint3 gid : SV_GroupID, uint gi : SV_GroupIndex) {\n\
           if (gi == 0) {\n\
             uint seen = 0;\n\
             [allow_uav_condition] while (true) {\n\
               InterlockedAdd(Ticket[0], 0, seen);\n\
               if (seen == gid.x) break;\n\
             }\n\
             InterlockedAdd(Ticket[0], 1);\n\
           }\n\
         }\n",
    )
    .unwrap();
    let pipeline = dir.join("ticket.yaml");
    std::fs::write(
        &pipeline,
        "---\nShaders:\n  - Stage: Compute\n    Entry: main\n    DispatchSize: [16, 1, 1]\n\
         Buffers:\n  - Name: Ticket\n    Format: UInt32\n    Data: [ 0 ]\n\
         DescriptorSets:\n  - Resources:\n    - Name: Ticket\n      Kind: RWStructuredBuffer\n      DirectXBinding:\n        Register: 0\n        Space: 0\n...\n",
    )
    .unwrap();
    let (p, s) = (pipeline.to_str().unwrap(), shader.to_str().unwrap());
    let o = lockstep(&["run", p, s, "--stats", "--wave-size", "8"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("groups:  one at a time, in order"),
        "{}",
        stderr(&o)
    );
    assert!(String::from_utf8_lossy(&o.stdout).contains("[ 16 ]"));
    let o = lockstep(&[EXAMPLE[0], EXAMPLE[1], EXAMPLE[2], "--stats"]);
    assert!(!stderr(&o).contains("groups:"), "{}", stderr(&o));
}

/// Bad input gets an error that names its cause: arguments in the wrong
/// order, a device file, an empty entry point (which runs), a flood of
/// errors (cut at 20), `-o FILE.png` without `-r`, and a test directory
/// that links to itself (each test once).
#[test]
fn bad_input_is_named_and_bounded() {
    let dir = scratch("bad-input");
    let o = lockstep(&[
        "run",
        "examples/compact_write.hlsl",
        "examples/compact_write.yaml",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("is read as the pipeline: the pipeline file comes first"),
        "{}",
        stderr(&o)
    );
    let o = lockstep(&["run", "examples/compact_write.yaml", "/dev/zero"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("it is not a regular file"),
        "{}",
        stderr(&o)
    );
    let empty = dir.join("empty.hlsl");
    std::fs::write(&empty, "[numthreads(4, 1, 1)] void main() {}\n").unwrap();
    let pipeline = dir.join("empty.yaml");
    std::fs::write(
        &pipeline,
        "Shaders:\n  - Stage: Compute\n    Entry: main\nDispatchParameters:\n  DispatchGroupCount: [2, 1, 1]\n",
    )
    .unwrap();
    for engine in ["native", "interpreter"] {
        let o = lockstep(&[
            "run",
            pipeline.to_str().unwrap(),
            empty.to_str().unwrap(),
            "--engine",
            engine,
        ]);
        assert_eq!(o.status.code(), Some(0), "{engine}: {}", stderr(&o));
    }
    let junk = dir.join("junk.hlsl");
    std::fs::write(&junk, "@ ".repeat(500)).unwrap();
    let o = lockstep(&["info", junk.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let text = stderr(&o);
    assert_eq!(text.matches(": error: ").count(), 20, "{text}");
    assert!(text.contains("error: too many errors; "), "{text}");
    let png = dir.join("out.png");
    let o = lockstep(&[
        "run",
        "examples/compact_write.yaml",
        "examples/compact_write.hlsl",
        "-o",
        png.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("name it with -r NAME"),
        "{}",
        stderr(&o)
    );
    #[cfg(unix)]
    {
        let tests = dir.join("tests");
        std::fs::create_dir_all(&tests).unwrap();
        std::fs::copy(
            repo().join("tests/offload/fmod.test"),
            tests.join("one.test"),
        )
        .unwrap();
        std::os::unix::fs::symlink(&tests, tests.join("again")).unwrap();
        let o = lockstep(&["test", tests.to_str().unwrap()]);
        let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
        assert!(stdout.contains("1 passed"), "{stdout}{}", stderr(&o));
    }
}
