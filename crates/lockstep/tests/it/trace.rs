//! `lockstep trace`: the steps, masks, values and wave operations a trace
//! records, against values derived by hand from the shaders; its limits
//! and errors; and the page in a real browser.

use lockstep::exec::TraceRequest;
use lockstep::pipeline::Kind;
use lockstep::{CompileOptions, RunOptions, TraceDocument, TraceOptions};
use serde_json::Value;

use crate::harness::{buf, compile, pipeline, words_of};

/// A divergent shader: the even lanes add 100, then a prefix sum.
const DIVERGENT: &str = "RWStructuredBuffer<uint> Out : register(u0);
[numthreads(8, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint x = id.x * 3;
    if (id.x % 2 == 0)
    {
        x = x + 100;
    }
    uint s = WavePrefixSum(x);
    Out[id.x] = s;
}
";

fn options(wave_size: u32, request: TraceRequest) -> TraceOptions {
    TraceOptions {
        run: RunOptions {
            wave_size,
            threads: 1,
            ..RunOptions::default()
        },
        request,
        check: false,
        ..TraceOptions::default()
    }
}

fn trace(source: &str, groups: [u32; 3], words: usize, opts: &TraceOptions) -> TraceDocument {
    let shader = compile(source, &CompileOptions::default());
    let p = pipeline(
        groups,
        &[buf("Out", Kind::RwStructuredBuffer, 0, vec![0; words])],
    );
    lockstep::trace(&shader, &p, opts).unwrap_or_else(|e| panic!("trace failed: {e}"))
}

fn json(doc: &TraceDocument) -> Value {
    serde_json::from_str(&doc.to_json()).expect("the trace is JSON")
}

/// Each step's source line.
fn lines(doc: &Value) -> Vec<u64> {
    doc["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            doc["statements"][s["statement"].as_u64().unwrap() as usize]["line"]
                .as_u64()
                .unwrap()
        })
        .collect()
}

/// The values step `step` wrote to variable `name`: its lanes, and a
/// value per lane as the schema spells them (one for all, `{first,
/// step}`, or a list).
fn written(doc: &Value, step: usize, name: &str) -> Option<(String, Value)> {
    let s = &doc["steps"][step];
    s["writes"].as_array()?.iter().find_map(|w| {
        let v = w["variable"].as_u64()? as usize;
        let lanes = w["lanes"].as_str().unwrap();
        let n = u128::from_str_radix(lanes, 16).unwrap().count_ones() as i64;
        let values = match &w["values"] {
            Value::Array(all) => Value::Array(all.clone()),
            Value::Object(o) => {
                let (a, d) = (o["first"].as_i64().unwrap(), o["step"].as_i64().unwrap());
                (0..n).map(|k| a + k * d).collect()
            }
            one => Value::Array(vec![one.clone(); n as usize]),
        };
        (doc["variables"][v]["name"] == name).then(|| (lanes.to_string(), values))
    })
}

#[test]
fn divergent_steps_have_the_masks_values_and_wave_operations_of_the_source() {
    let doc = json(&trace(
        DIVERGENT,
        [1, 1, 1],
        8,
        &options(8, TraceRequest::default()),
    ));
    assert_eq!(doc["format"], "lockstep-trace");
    assert_eq!(doc["wave_size"], 8);
    // Lines 5 (x = ...), 6 (if), 8 (x + 100, even lanes), 10 (prefix
    // sum), 11 (store).
    assert_eq!(lines(&doc), [5, 6, 8, 10, 11]);
    let steps = doc["steps"].as_array().unwrap();
    let active: Vec<&str> = steps
        .iter()
        .map(|s| s["active"].as_str().unwrap())
        .collect();
    assert_eq!(active, ["ff", "ff", "55", "ff", "ff"]);
    // The first step: x = 3 · lane, with the system value.
    assert_eq!(
        written(&doc, 0, "x"),
        Some(("ff".into(), serde_json::json!([0, 3, 6, 9, 12, 15, 18, 21])))
    );
    assert_eq!(
        written(&doc, 0, "id.x"),
        Some(("ff".into(), serde_json::json!([0, 1, 2, 3, 4, 5, 6, 7])))
    );
    // The branch writes the even lanes only.
    assert_eq!(
        written(&doc, 2, "x"),
        Some(("55".into(), serde_json::json!([100, 106, 112, 118])))
    );
    // The prefix sum reads every lane's x and returns the sums below it.
    let op = &steps[3]["ops"][0];
    assert_eq!(op["op"], "WavePrefixSum");
    assert_eq!(op["sources"], "ff");
    assert_eq!(
        op["inputs"],
        serde_json::json!([100, 3, 106, 9, 112, 15, 118, 21])
    );
    assert_eq!(
        op["outputs"],
        serde_json::json!([0, 100, 103, 209, 218, 330, 345, 463])
    );
    assert_eq!(
        written(&doc, 3, "s"),
        Some(("ff".into(), op["outputs"].clone()))
    );
}

#[test]
fn a_wave_and_a_group_are_chosen_and_the_others_not_recorded() {
    // Two groups of two waves of 4 lanes: group 1's wave 1 is threads
    // 12..16.
    let request = TraceRequest {
        groups: vec![[1, 0, 0]],
        wave: Some(1),
        ..TraceRequest::default()
    };
    let doc = json(&trace(DIVERGENT, [2, 1, 1], 16, &options(4, request)));
    assert_eq!(doc["waves"].as_array().unwrap().len(), 1);
    assert_eq!(doc["waves"][0]["group"], serde_json::json!([1, 0, 0]));
    assert_eq!(doc["waves"][0]["index"], 1);
    assert_eq!(
        written(&doc, 0, "id.x"),
        Some(("f".into(), serde_json::json!([12, 13, 14, 15])))
    );
    // Lanes 12 and 14 are even: lanes 0 and 2 of the wave.
    assert_eq!(doc["steps"][2]["active"], "5");
    let op = &doc["steps"][3]["ops"][0];
    // x = [136, 39, 142, 45]; sums below each lane.
    assert_eq!(op["outputs"], serde_json::json!([0, 136, 175, 317]));
}

#[test]
fn a_called_function_s_locals_keep_their_values_after_the_call() {
    let source = "RWStructuredBuffer<uint> Out : register(u0);
uint twice_plus_one(uint a)
{
    uint b = a * 2;
    return b + 1;
}
[numthreads(4, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint r = twice_plus_one(id.x);
    uint t = r + 7;
    Out[id.x] = t;
}
";
    let doc = json(&trace(
        source,
        [1, 1, 1],
        4,
        &options(4, TraceRequest::default()),
    ));
    // The call's statement, the function's two, the call's again (its
    // result is assigned), then t and the store.
    assert_eq!(lines(&doc), [10, 4, 5, 10, 11, 12]);
    assert_eq!(
        written(&doc, 1, "b"),
        Some(("f".into(), serde_json::json!([0, 2, 4, 6])))
    );
    let b = doc["variables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["name"] == "b")
        .unwrap();
    assert_eq!(b["function"], "twice_plus_one");
    assert_eq!(
        written(&doc, 3, "r"),
        Some(("f".into(), serde_json::json!([1, 3, 5, 7])))
    );
    assert_eq!(
        written(&doc, 4, "t"),
        Some(("f".into(), serde_json::json!([8, 10, 12, 14])))
    );
}

const LOOP: &str = "RWStructuredBuffer<uint> Out : register(u0);
[numthreads(4, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint sum = 0;
    for (uint i = 0; i < 200 + id.x; ++i)
        sum += i;
    Out[id.x] = sum;
}
";

#[test]
fn past_the_step_limit_the_trace_stops_and_says_how_to_narrow_it() {
    let request = TraceRequest {
        max_steps: 50,
        ..TraceRequest::default()
    };
    let doc = trace(LOOP, [1, 1, 1], 4, &options(4, request));
    assert_eq!(doc.steps.len(), 50);
    // sum, i, then per iteration: the condition, the sum, ++i; the last
    // lane runs 203 iterations.
    assert!(doc.total_steps > 600, "{}", doc.total_steps);
    let note = doc.truncated.as_deref().expect("the trace says it stopped");
    assert!(
        note.contains("--steps A..B") && note.contains("--step-limit"),
        "{note}"
    );
    let page = doc.to_html();
    assert!(page.len() < 200_000, "{} bytes", page.len());
}

#[test]
fn a_range_of_steps_keeps_those_steps() {
    let all = json(&trace(
        LOOP,
        [1, 1, 1],
        4,
        &options(4, TraceRequest::default()),
    ));
    let request = TraceRequest {
        steps: 100..110,
        ..TraceRequest::default()
    };
    let part = json(&trace(LOOP, [1, 1, 1], 4, &options(4, request)));
    assert_eq!(part["steps"].as_array().unwrap().len(), 10);
    // The same statements and masks as steps 100..110 of the whole trace.
    for k in 0..10 {
        assert_eq!(
            part["steps"][k]["statement"],
            all["steps"][100 + k]["statement"]
        );
        assert_eq!(part["steps"][k]["active"], all["steps"][100 + k]["active"]);
    }
    // Past iteration 200 the lanes leave one by one.
    let last: Vec<&str> = all["steps"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .take(12)
        .map(|s| s["active"].as_str().unwrap())
        .collect();
    assert!(last.contains(&"8") && last.contains(&"c"), "{last:?}");
}

#[test]
fn past_its_lane_values_the_trace_stops_and_says_how_to_narrow_it() {
    // A value per lane that follows no pattern, on every step.
    let source = LOOP
        .replace("numthreads(4", "numthreads(32")
        .replace("200 + id.x", "100000")
        .replace(
            "sum += i;",
            "sum = sum * 1664525u + 1013904223u + id.x * id.x;",
        );
    let run = |max_values| {
        let request = TraceRequest {
            max_values,
            ..TraceRequest::default()
        };
        trace(&source, [1, 1, 1], 32, &options(32, request))
    };
    let doc = run(1000);
    // Each iteration writes 32 values of `sum` and 32 of `i`: the step
    // that reaches 1000 values, some sixteen iterations in, is the last.
    assert!((30..=50).contains(&doc.steps.len()), "{}", doc.steps.len());
    assert!(doc.total_steps > 1000, "{}", doc.total_steps);
    let note = doc.truncated.as_deref().expect("the trace says it stopped");
    assert!(
        note.contains("1000 lane values") && note.contains("--wave N"),
        "{note}"
    );
    // About four bytes of page per value that follows no pattern: the
    // default's 12 million values stay under about 50 MB.
    let doc = run(400_000);
    let page = doc.to_html().len() as f64;
    eprintln!("{} bytes per value", page / 400_000.0);
    assert!(
        page / 400_000.0 * (lockstep::exec::trace::DEFAULT_MAX_VALUES as f64) < 52e6,
        "{page} bytes"
    );
}

#[test]
fn a_million_steps_stay_under_fifty_megabytes() {
    // 20,000 steps of a loop at wave size 32 whose sum differs on every
    // lane: the page's size per step bounds a million steps' size.
    let request = TraceRequest {
        max_steps: 20_000,
        ..TraceRequest::default()
    };
    let opts = options(32, request);
    let source = LOOP
        .replace("numthreads(4", "numthreads(32")
        .replace("200 + id.x", "100000")
        .replace("sum += i;", "sum += i * (id.x + 1);");
    let doc = trace(&source, [1, 1, 1], 32, &opts);
    assert_eq!(doc.steps.len(), 20_000);
    let per_step = doc.to_html().len() as f64 / 20_000.0;
    eprintln!("{per_step} bytes per step");
    assert!(per_step * 1e6 < 50e6, "{per_step} bytes per step");
}

#[test]
fn a_pixel_wave_s_helpers_are_its_quads_uncovered_pixels() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/draw");
    let pipeline = lockstep::pipeline::parse_file(&dir.join("triangle.yaml")).unwrap();
    let file = dir.join("triangle.hlsl");
    let source = std::fs::read_to_string(&file).unwrap();
    let stage = |stage, entry: &str, profile| {
        let opts = CompileOptions {
            entry: entry.to_string(),
            stage,
            shader_model: profile,
            ..CompileOptions::default()
        };
        compile(&source, &opts)
    };
    let vs = stage(lockstep::ir::Stage::Vertex, "VSMain", (6, 0));
    let ps = stage(lockstep::ir::Stage::Pixel, "PSMain", (6, 0));
    let request = TraceRequest {
        groups: vec![[3, 0, 0]],
        ..TraceRequest::default()
    };
    let doc = lockstep::trace_draw(&vs, &ps, &pipeline, &options(32, request)).unwrap();
    let doc = json(&doc);
    assert_eq!(doc["stage"], "pixel");
    let pixels = doc["waves"][0]["pixels"].as_array().unwrap();
    assert_eq!(pixels.len(), 32);
    let mut helpers = 0u128;
    for (lane, p) in pixels.iter().enumerate() {
        let p = p.as_array().unwrap();
        // Lanes 4q..4q+4 are one quad: (x, y), (x+1, y), (x, y+1), (x+1, y+1).
        let base = &pixels[lane & !3];
        assert_eq!(
            p[0].as_u64(),
            base[0].as_u64().map(|x| x + (lane as u64 & 1))
        );
        assert_eq!(
            p[1].as_u64(),
            base[1].as_u64().map(|y| y + (lane as u64 >> 1 & 1))
        );
        if p[2] == 0 {
            helpers |= 1 << lane;
        }
    }
    assert_ne!(helpers, 0, "this wave is on the triangle's edge");
    let helpers = format!("{helpers:x}");
    for s in doc["steps"].as_array().unwrap() {
        assert_eq!(s["helpers"], helpers.as_str());
    }
    assert_eq!(doc["target"]["width"], 128);
}

#[test]
fn groups_and_waves_the_dispatch_does_not_have_are_errors() {
    let shader = compile(DIVERGENT, &CompileOptions::default());
    let p = pipeline(
        [2, 1, 1],
        &[buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 16])],
    );
    let err = |request| {
        lockstep::trace(&shader, &p, &options(4, request))
            .expect_err("an error")
            .message
    };
    let e = err(TraceRequest {
        groups: vec![[2, 0, 0]],
        ..TraceRequest::default()
    });
    assert!(
        e.contains("--group 2,0,0") && e.contains("2 x 1 x 1 groups"),
        "{e}"
    );
    let e = err(TraceRequest {
        wave: Some(2),
        ..TraceRequest::default()
    });
    assert!(
        e.contains("--wave 2") && e.contains("2 waves at wave size 4"),
        "{e}"
    );
}

#[test]
fn values_are_spelt_as_their_type() {
    let source = "RWStructuredBuffer<float> Out : register(u0);
[numthreads(4, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float f = 0.1 * id.x;
    float n = f / (f - f);
    int k = -(int)id.x;
    Out[id.x] = f + n + k;
}
";
    let doc = json(&trace(
        source,
        [1, 1, 1],
        4,
        &options(4, TraceRequest::default()),
    ));
    assert_eq!(
        written(&doc, 0, "f").unwrap().1,
        serde_json::json!([0.0, 0.1, 0.2, 0.3])
    );
    // 0/0 is NaN, x/0 infinite: strings, as JSON has neither.
    assert_eq!(
        written(&doc, 1, "n").unwrap().1,
        serde_json::json!(["NaN", "inf", "inf", "inf"])
    );
    assert_eq!(
        written(&doc, 2, "k").unwrap().1,
        serde_json::json!([0, -1, -2, -3])
    );
}

/// ChromeDriver, or `None` (outside CI) to skip.
fn chromedriver() -> Option<std::path::PathBuf> {
    let found = ["/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver"]
        .iter()
        .map(std::path::PathBuf::from)
        .find(|p| p.exists());
    if found.is_none() && std::env::var_os("CI").is_some() {
        panic!("chromedriver (Debian's chromium-driver) is required in CI");
    }
    if found.is_none() {
        eprintln!("skipped: no chromedriver (apt-get install chromium chromium-driver)");
    }
    found
}

/// A WebDriver session of headless Chromium.
struct Browser {
    driver: std::process::Child,
    base: String,
}

impl Browser {
    fn start(chromedriver: &std::path::Path) -> Browser {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .unwrap();
        let driver = std::process::Command::new(chromedriver)
            .arg(format!("--port={port}"))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let mut browser = Browser {
            driver,
            base: format!("http://127.0.0.1:{port}"),
        };
        let caps = serde_json::json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                "--disable-dev-shm-usage", "--window-size=1500,950"]}
        }}});
        let mut session = None;
        for _ in 0..100 {
            match ureq::post(&format!("{}/session", browser.base)).send_json(&caps) {
                Ok(mut r) => {
                    let v: Value = r.body_mut().read_json().unwrap();
                    session = v["value"]["sessionId"].as_str().map(str::to_string);
                    break;
                }
                Err(_) => std::thread::sleep(std::time::Duration::from_millis(100)),
            }
        }
        let session = session.expect("a WebDriver session");
        browser.base = format!("{}/session/{session}", browser.base);
        browser
    }

    fn post(&self, path: &str, body: Value) -> Value {
        let mut r = ureq::post(&format!("{}/{path}", self.base))
            .send_json(&body)
            .unwrap_or_else(|e| panic!("{path}: {e}"));
        r.body_mut().read_json::<Value>().unwrap()["value"].clone()
    }

    fn get(&self, path: &str) -> Value {
        let mut r = ureq::get(&format!("{}/{path}", self.base))
            .call()
            .unwrap_or_else(|e| panic!("{path}: {e}"));
        r.body_mut().read_json::<Value>().unwrap()["value"].clone()
    }

    /// The element `css` selects, waiting for it to appear.
    fn find(&self, css: &str) -> String {
        for _ in 0..100 {
            let mut r = ureq::post(&format!("{}/element", self.base))
                .send_json(serde_json::json!({"using": "css selector", "value": css}));
            if let Ok(r) = r.as_mut() {
                let v: Value = r.body_mut().read_json().unwrap();
                if let Some(id) = v["value"].as_object().and_then(|o| o.values().next()) {
                    return id.as_str().unwrap().to_string();
                }
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        panic!("no element {css}");
    }

    fn text(&self, css: &str) -> String {
        let id = self.find(css);
        self.get(&format!("element/{id}/text"))
            .as_str()
            .unwrap()
            .to_string()
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = ureq::delete(&self.base).call();
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

/// Opens the trace of the compacted-write example in headless Chromium,
/// clicks the step of its prefix count, and checks that the page shows the
/// values the engine stored.
#[test]
fn the_page_shows_the_engine_s_values_when_a_step_is_clicked() {
    let Some(chromedriver) = chromedriver() else {
        return;
    };
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let pipeline =
        lockstep::pipeline::parse_file(&root.join("examples/compact_write.yaml")).unwrap();
    let source = std::fs::read_to_string(root.join("examples/compact_write.hlsl")).unwrap();
    let shader = lockstep::compile(
        "examples/compact_write.hlsl",
        &source,
        &CompileOptions::default(),
        &lockstep::MemoryLoader::default(),
    )
    .unwrap_or_else(|e| panic!("{}", e.render(false)));
    let run = RunOptions {
        wave_size: 8,
        ..RunOptions::default()
    };
    let opts = TraceOptions {
        run: run.clone(),
        ..TraceOptions::default()
    };
    let doc = lockstep::trace(&shader, &pipeline, &opts).unwrap();
    let dir = std::env::temp_dir().join(format!("lockstep-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let page = dir.join("compact_write.html");
    std::fs::write(&page, doc.to_html()).unwrap();
    // The values the engine computed: the output slots each lane wrote.
    let out = lockstep::run(&shader, &pipeline, &run).unwrap();
    let output = words_of(out.contents[1].as_bytes());
    // The step of the prefix count (line 28) of wave 0.
    let step = doc
        .steps
        .iter()
        .position(|s| s.wave == 0 && doc.statements[s.statement as usize].line == 28)
        .expect("a step at line 28");

    let browser = Browser::start(&chromedriver);
    browser.post(
        "url",
        serde_json::json!({"url": format!("file://{}", page.display())}),
    );
    browser.find("body[data-ready='true']");
    let column = browser.find(&format!(".col[data-step='{step}']"));
    browser.post(&format!("element/{column}/click"), serde_json::json!({}));
    assert!(
        browser
            .text("#step-title")
            .starts_with(&format!("Step {step} "))
    );
    // Lane l of wave 0 holds thread l; the lanes with an item stored
    // myData = l at Output[appendOffset], where appendOffset is the base
    // (0 for the first wave) plus the lane's prefix count.
    for lane in 0..8u32 {
        let prefix: u32 = browser
            .text(&format!(
                "#values td[data-lane='{lane}'][data-var='laneAppendOffset']"
            ))
            .parse()
            .unwrap();
        let op: u32 = browser
            .text(&format!("#ops td[data-lane='{lane}']"))
            .parse()
            .unwrap();
        assert_eq!(prefix, op, "lane {lane}");
        if lane % 3 != 0 {
            assert_eq!(output[prefix as usize], lane, "lane {lane}: slot {prefix}");
        }
    }
    // The README's picture: LOCKSTEP_TRACE_SCREENSHOT=docs/trace.png.
    if let Some(path) = std::env::var_os("LOCKSTEP_TRACE_SCREENSHOT") {
        use base64::Engine;
        let png = browser.get("screenshot");
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(png.as_str().unwrap())
            .unwrap();
        std::fs::write(root.join(path), bytes).unwrap();
    }
    drop(browser);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn findings_link_to_the_steps_at_their_line() {
    // Lane 0 reads lane 1, which is inactive: undefined (line 7). The sum
    // of lane ids depends on the wave size: a portability finding of
    // `check` at the store (line 9).
    let source = "RWStructuredBuffer<uint> Out : register(u0);
[numthreads(8, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint v = id.x;
    if (id.x != 1)
        v = WaveReadLaneAt(v, 1);
    uint s = WaveActiveSum(id.x);
    Out[id.x] = s + v;
}
";
    let opts = TraceOptions {
        check: true,
        ..options(4, TraceRequest::default())
    };
    let doc = json(&trace(source, [1, 1, 1], 8, &opts));
    let findings = doc["findings"].as_array().unwrap();
    let line_of = |step: &Value| {
        let s = &doc["steps"][step.as_u64().unwrap() as usize];
        doc["statements"][s["statement"].as_u64().unwrap() as usize]["line"].as_u64()
    };
    let read = findings
        .iter()
        .find(|f| f["from"] == "run")
        .expect("the traced run's finding");
    assert!(
        read["location"].as_str().unwrap().ends_with(":7:13"),
        "{read}"
    );
    // Both waves of 4 read lane 1, inactive in the first wave only.
    let steps = read["steps"].as_array().unwrap();
    assert!(!steps.is_empty());
    assert!(steps.iter().all(|s| line_of(s) == Some(7)));
    let portability = findings
        .iter()
        .find(|f| f["kind"] == "portability")
        .expect("check's portability finding");
    assert_eq!(portability["from"], "check");
    let steps = portability["steps"].as_array().unwrap();
    assert!(!steps.is_empty() && steps.iter().all(|s| line_of(s) == Some(9)));
}

#[test]
fn a_loop_that_never_ends_keeps_the_steps_before_the_budget() {
    let source = "RWStructuredBuffer<uint> Out : register(u0);
[numthreads(4, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint n = 0;
    while (Out[0] == 0)
        n += 1;
    Out[id.x] = n;
}
";
    let mut opts = options(4, TraceRequest::default());
    opts.run.step_budget = 100;
    let doc = trace(source, [1, 1, 1], 4, &opts);
    let stopped = doc.stopped.as_deref().expect("the run stopped");
    assert!(
        stopped.contains(":6:") && stopped.contains("step budget"),
        "{stopped}"
    );
    let doc = json(&doc);
    // n counts the iterations run: 100 of them, all lanes together.
    let last = doc["steps"].as_array().unwrap().len() - 1;
    let n = (0..=last)
        .rev()
        .find_map(|k| written(&doc, k, "n"))
        .unwrap();
    assert_eq!(n.1[0], 100, "{n:?}");
    let error = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["kind"] == "error")
        .expect("the error as a finding");
    assert!(!error["steps"].as_array().unwrap().is_empty());
}

/// Each shader of tests/check marks the line of the finding it must
/// produce (`// FINDING: kind`): its trace has that finding, at that line
/// and linked to its steps.
#[test]
fn every_kind_of_finding_links_to_the_steps_of_its_line() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/check");
    let pipeline = lockstep::pipeline::parse_file(&dir.join("ub.yaml")).unwrap();
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "hlsl"))
        .collect();
    files.sort();
    assert!(files.len() >= 15);
    for hlsl in files {
        let source = std::fs::read_to_string(&hlsl).unwrap();
        let (line, kind) = source
            .lines()
            .enumerate()
            .find_map(|(i, l)| {
                l.split_once("// FINDING: ")
                    .map(|(_, k)| (i as u64 + 1, k.trim().to_string()))
            })
            .unwrap();
        let shader = compile(&source, &CompileOptions::default());
        let opts = TraceOptions {
            check: true,
            ..options(8, TraceRequest::default())
        };
        let doc = json(&lockstep::trace(&shader, &pipeline, &opts).unwrap());
        let line_of = |step: &Value| {
            let s = &doc["steps"][step.as_u64().unwrap() as usize];
            doc["statements"][s["statement"].as_u64().unwrap() as usize]["line"].as_u64()
        };
        // The finding points at the line; its steps are those of its
        // places (for another schedule, the writers as well as the atomic).
        let found = doc["findings"].as_array().unwrap().iter().any(|f| {
            let steps = f["steps"].as_array().unwrap();
            let at = f["location"].as_str().unwrap_or("");
            f["kind"] == kind.as_str()
                && at.starts_with(&format!("test.hlsl:{line}:"))
                && steps.iter().any(|s| line_of(s) == Some(line))
                && (kind == "order-dependence" || steps.iter().all(|s| line_of(s) == Some(line)))
        });
        assert!(
            found,
            "{}: no {kind} finding with the steps of line {line}: {}",
            hlsl.display(),
            doc["findings"]
        );
    }
}
