fn main() {
    let f = std::env::args().nth(1).unwrap();
    let sh = lockstep_bench::suite::compile_source("x.hlsl", &std::fs::read_to_string(f).unwrap())
        .unwrap();
    let checked = lockstep::exec::Program::compile_checked(&sh.module).unwrap();
    let d = format!("{:?}", checked);
    let a = d.find("code: [").unwrap();
    let rest = &d[a + 7..];
    let mut depth = 0;
    let mut cur = String::new();
    let mut i = 0;
    for ch in rest.chars() {
        match ch {
            '{' | '(' | '[' => depth += 1,
            '}' | ')' => depth -= 1,
            ']' => {
                if depth == 0 {
                    break;
                }
                depth -= 1
            }
            _ => {}
        }
        if ch == ',' && depth == 0 {
            println!("{i:3} {}", cur.trim());
            i += 1;
            cur.clear();
        } else {
            cur.push(ch);
        }
    }
    println!("{i:3} {}", cur.trim());
}
