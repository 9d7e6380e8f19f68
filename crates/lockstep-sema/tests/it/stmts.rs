//! Statements: control flow, jumps, returns, discard and barriers.

use expect_test::expect;

use crate::{body, check};

#[test]
fn if_else() {
    check(
        &body("int x; float f; if (x > 1) x = 2; else if (f) { x = 3; } else x = 4; if (x) {}"),
        expect![[r#"
            fn main() -> void {
              local %x: int
              local %f: float
              if (%x > 1) {
                %x = 2;
              } else {
                if (bool)%f {
                  %x = 3;
                } else {
                  %x = 4;
                }
              }
              if (bool)%x {
              }
            }
            entry main: fn main, numthreads(1, 1, 1), inputs()
        "#]],
    );
    check(
        &body("float3 v; if (v) {}"),
        expect![[r#"
        3:15: error: value of type 'float3' is not contextually convertible to 'bool'
    "#]],
    );
}

#[test]
fn for_loops() {
    check(
        &body(
            "int sum = 0; for (int i = 0; i < 4; ++i) { if (i == 2) continue; sum += i; } for (;;) { break; }",
        ),
        expect![[r#"
            fn main() -> void {
              local %sum: int
              local %i: int
              %sum = 0;
              %i = 0;
              loop {
                if !(%i < 4) {
                  break;
                }
                if (%i == 2) {
                  continue;
                }
                %sum = (%sum + %i);
              } continuing {
                %i = (%i + 1);
              }
              loop {
                break;
              }
            }
            entry main: fn main, numthreads(1, 1, 1), inputs()
        "#]],
    );
}

#[test]
fn while_and_do_while() {
    check(
        &body(
            "uint n = 10; while (n > 0) { n--; if (n == 5) break; } do { n += 2; if (n < 3) continue; } while (n < 20);",
        ),
        expect![[r#"
            fn main() -> void {
              local %n: uint
              %n = 10u;
              loop {
                if !(%n > 0u) {
                  break;
                }
                (%n = (%n - 1u), yield old);
                if (%n == 5u) {
                  break;
                }
              }
              loop {
                %n = (%n + 2u);
                if (%n < 3u) {
                  continue;
                }
              } continuing {
                if !(%n < 20u) {
                  break;
                }
              }
            }
            entry main: fn main, numthreads(1, 1, 1), inputs()
        "#]],
    );
}

#[test]
fn switch_with_fallthrough() {
    check(
        &body(
            "int x; int y = 0;
            switch (x) {
            case 0:
            case 1: y = 1;
            case 2: y += 2; break;
            case -3: { y = 3; break; }
            default: y = 4;
            }
            uint u; switch (u) { case 1u: default: break; }",
        ),
        expect![[r#"
            fn main() -> void {
              local %x: int
              local %y: int
              local %u: uint
              %y = 0;
              switch %x {
                case 0, case 1: {
                  %y = 1;
                }
                case 2: {
                  %y = (%y + 2);
                  break;
                }
                case -3: {
                  %y = 3;
                  break;
                }
                default: {
                  %y = 4;
                }
              }
              switch %u {
                case 1, default: {
                  break;
                }
              }
            }
            entry main: fn main, numthreads(1, 1, 1), inputs()
        "#]],
    );
}

#[test]
fn switch_errors() {
    check(
        &body(
            "int x; int k; float f; switch (x) { case 1: break; case 1: break; default: break; default: break; case k: break; } switch (f) { case 1: break; }",
        ),
        expect![[r#"
            3:57: error: duplicate case value '1'
              3:42: previous case defined here
            3:83: error: multiple default labels in one switch
              3:67: previous default label is here
            3:104: error: case value is not a constant expression
            3:124: error: statement requires expression of integer type ('float' invalid)
        "#]],
    );
}

#[test]
fn jumps_outside_loops() {
    check(
        &body("break; continue; int x; switch (x) { case 0: continue; }"),
        expect![[r#"
        3:1: error: 'break' statement not in loop or switch statement
        3:8: error: 'continue' statement not in loop statement
        3:46: error: 'continue' statement not in loop statement
    "#]],
    );
    check(
        &body(
            "int x; for (int i = 0; i < 2; i++) { switch (x) { case 0: continue; default: break; } }",
        ),
        expect![[r#"
            fn main() -> void {
              local %x: int
              local %i: int
              %i = 0;
              loop {
                if !(%i < 2) {
                  break;
                }
                switch %x {
                  case 0: {
                    continue;
                  }
                  default: {
                    break;
                  }
                }
              } continuing {
                (%i = (%i + 1), yield old);
              }
            }
            entry main: fn main, numthreads(1, 1, 1), inputs()
        "#]],
    );
}

#[test]
fn discard_is_an_error() {
    check(
        &body("discard;"),
        expect![[r#"
        3:1: error: 'discard' is only allowed in pixel shaders, and this is a compute shader
    "#]],
    );
}

#[test]
fn barriers() {
    check(
        &body(
            "GroupMemoryBarrier(); GroupMemoryBarrierWithGroupSync(); DeviceMemoryBarrier();
            DeviceMemoryBarrierWithGroupSync(); AllMemoryBarrier(); AllMemoryBarrierWithGroupSync();",
        ),
        expect![[r#"
            fn main() -> void {
              barrier(group_memory);
              barrier(group_memory, group_sync);
              barrier(device_memory);
              barrier(device_memory, group_sync);
              barrier(group_memory, device_memory);
              barrier(group_memory, device_memory, group_sync);
            }
            entry main: fn main, numthreads(1, 1, 1), inputs()
        "#]],
    );
    check(
        &body("int x = (GroupMemoryBarrier(), 1); AllMemoryBarrier(1);"),
        expect![[r#"
        3:10: error: 'GroupMemoryBarrier' can only be called as a statement
        3:36: error: no matching function for call to 'AllMemoryBarrier'
          note: candidate function not viable: requires 0 arguments, but 1 was provided
    "#]],
    );
}

#[test]
fn early_return_in_entry() {
    check(
        "[numthreads(4, 1, 1)]
        void main(uint i : SV_GroupIndex) { if (i == 0) return; }",
        expect![[r#"
            fn main(in %i: uint) -> void {
              if (%i == 0u) {
                return;
              }
            }
            entry main: fn main, numthreads(4, 1, 1), inputs(GroupIndex)
        "#]],
    );
}
