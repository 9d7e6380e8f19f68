#[test]
fn probe() {
    let text = format!("void f() {{ a = {}1{}; }}", "(".repeat(20), ")".repeat(20));
    let mut map = lockstep_syntax::SourceMap::new();
    let main = map.add("m", text, None);
    let mut d = lockstep_syntax::Diagnostics::default();
    let _ = lockstep_syntax::parse_file(&mut map, main, &Default::default(), &lockstep_syntax::NoIncludes, &mut d);
}
