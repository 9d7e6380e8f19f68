//! Resources: bindings (explicit and implicit), buffer access and methods,
//! constant buffers, `$Globals`, groupshared memory and statics.

use expect_test::expect;

use crate::check;

/// DXC removes the resources the entry point does not use before it gives
/// registers to those without one: `In` takes t0 although `A` comes first
/// and `B` names t0; the unused ones still get registers no other unused
/// one has.
#[test]
fn implicit_registers_count_only_used_resources() {
    check(
        "StructuredBuffer<int> A;
        StructuredBuffer<int> B : register(t0);
        StructuredBuffer<int> In;
        RWStructuredBuffer<int> Out;
        int helper() { return In[1]; }
        [numthreads(1, 1, 1)]
        void main() { Out[0] = helper(); }",
        expect![[r#"
            resource A: StructuredBuffer<int>, register(t1, space0) (implicit)
            resource B: StructuredBuffer<int>, register(t0, space0)
            resource In: StructuredBuffer<int>, register(t0, space0) (implicit)
            resource Out: RWStructuredBuffer<int>, register(u0, space0) (implicit)
            fn helper() -> int {
              return In[1u];
            }
            fn main() -> void {
              Out[0u] = helper<int>();
            }
            entry main: fn main, numthreads(1, 1, 1), inputs()
        "#]],
    );
}

#[test]
fn bindings_explicit_and_implicit() {
    check(
        "StructuredBuffer<float> input : register(t1);
        RWStructuredBuffer<uint> output;
        RWBuffer<float4> typed : register(u0, space1);
        Buffer plain;
        ByteAddressBuffer raw;
        RWByteAddressBuffer rw_raw : register(u0);
        cbuffer Params : register(b1) { float scale; uint count; };
        cbuffer More { float4 tint; };
        float global_value;
        [numthreads(1, 1, 1)]
        void main() {}",
        expect![[r#"
            struct Params { float scale; uint count; }
            struct More { float4 tint; }
            struct $Globals { float global_value; }
            resource input: StructuredBuffer<float>, register(t1, space0)
            resource output: RWStructuredBuffer<uint>, register(u1, space0) (implicit)
            resource typed: RWBuffer<float4>, register(u0, space1)
            resource plain: Buffer<float4>, register(t0, space0) (implicit)
            resource raw: ByteAddressBuffer, register(t2, space0) (implicit)
            resource rw_raw: RWByteAddressBuffer, register(u0, space0)
            resource Params: ConstantBuffer<Params>, register(b1, space0)
            resource More: ConstantBuffer<More>, register(b2, space0) (implicit)
            resource $Globals: ConstantBuffer<$Globals>, register(b0, space0) (implicit)
            fn main() -> void {
            }
            entry main: fn main, numthreads(1, 1, 1), inputs()
        "#]],
    );
}

#[test]
fn binding_errors() {
    check(
        "StructuredBuffer<float> a : register(u0);
        RWStructuredBuffer<uint> b : register(u1);
        RWStructuredBuffer<uint> c : register(u1);
        cbuffer P : register(t0) { float x; };
        [numthreads(1, 1, 1)]
        void main() {}",
        expect![[r#"
            1:29: error: register 'u0' cannot bind a read-only resource ('a' needs a 't' register)
            3:38: error: register u1 space0 is already bound to 'b'
            4:21: error: register 't0' cannot bind a constant buffer ('P' needs a 'b' register)
        "#]],
    );
}

#[test]
fn buffer_access() {
    check(
        "struct Item { float3 pos; uint id; };
        StructuredBuffer<Item> items;
        RWStructuredBuffer<float> outputs;
        RWBuffer<uint2> pairs;
        Buffer<float> weights;
        [numthreads(64, 1, 1)]
        void main(uint3 id : SV_DispatchThreadID) {
            Item it = items[id.x];
            outputs[id.x] = items[id.x].pos.y * weights.Load(id.x);
            pairs[id.x].y += 1;
            outputs[0] = it.id;
            uint n, stride; items.GetDimensions(n, stride);
            pairs.GetDimensions(n);
        }",
        expect![[r#"
            struct Item { float3 pos; uint id; }
            resource items: StructuredBuffer<Item>, register(t0, space0) (implicit)
            resource outputs: RWStructuredBuffer<float>, register(u0, space0) (implicit)
            resource pairs: RWBuffer<uint2>, register(u1, space0) (implicit)
            resource weights: Buffer<float>, register(t1, space0) (implicit)
            fn main(in %id: uint3) -> void {
              local %it: Item
              local %n: uint
              local %stride: uint
              %it = items[%id.x];
              outputs[%id.x] = (items[%id.x].pos.y * weights[%id.x]);
              pairs[%id.x].y = (pairs[%id.x].y + 1u);
              outputs[0u] = (float)%it.id;
              ((%n = items.element_count()), (%stride = items.stride()));
              %n = pairs.element_count();
            }
            entry main: fn main, numthreads(64, 1, 1), inputs(DispatchThreadId)
        "#]],
    );
}

#[test]
fn read_only_buffers() {
    check(
        "StructuredBuffer<float> input;
        cbuffer P { float k; };
        [numthreads(1, 1, 1)]
        void main() { input[0] = 1; k = 2; input; input.Store(0, 1); input.GetDimensions(); }",
        expect![[r#"
            4:23: error: cannot assign to a read-only resource
            4:37: error: cannot assign to a constant buffer member
            4:44: error: resource 'input' cannot be used as a value
            4:57: error: no member named 'Store' in 'StructuredBuffer<float>'
            4:70: error: no matching function for call to 'GetDimensions'
              note: candidate function not viable: requires 2 arguments, but 0 were provided
        "#]],
    );
}

#[test]
fn byte_address_buffers() {
    check(
        "ByteAddressBuffer src;
        RWByteAddressBuffer dst;
        [numthreads(1, 1, 1)]
        void main() {
            uint a = src.Load(0);
            uint2 b = src.Load2(8);
            uint4 c = src.Load4(16);
            float2 f = src.Load<float2>(32);
            dst.Store(0, a);
            dst.Store3(4, c.xyz);
            dst.Store<float2>(16, f);
            dst.Store(24, f.x);
            uint old, size;
            dst.InterlockedAdd(0, 1);
            dst.InterlockedMax(4, 9, old);
            dst.InterlockedCompareExchange(8, 1, 2, old);
            dst.InterlockedCompareStore(8, 1, 2);
            src.GetDimensions(size);
        }",
        expect![[r#"
            resource src: ByteAddressBuffer, register(t0, space0) (implicit)
            resource dst: RWByteAddressBuffer, register(u0, space0) (implicit)
            fn main() -> void {
              local %a: uint
              local %b: uint2
              local %c: uint4
              local %f: float2
              local %old: uint
              local %size: uint
              %a = src.bytes<uint>[0u];
              %b = src.bytes<uint2>[8u];
              %c = src.bytes<uint4>[16u];
              %f = src.bytes<float2>[32u];
              dst.bytes<uint>[0u] = %a;
              dst.bytes<uint3>[4u] = %c.xyz;
              dst.bytes<float2>[16u] = %f;
              dst.bytes<float>[24u] = %f.x;
              atomic_add(dst.bytes<uint>[0u], 1u);
              %old = atomic_max(dst.bytes<uint>[4u], 9u);
              %old = atomic_compare_exchange(dst.bytes<uint>[8u], 1u, 2u);
              atomic_compare_store(dst.bytes<uint>[8u], 1u, 2u);
              %size = src.byte_size();
            }
            entry main: fn main, numthreads(1, 1, 1), inputs()
        "#]],
    );
}

#[test]
fn interlocked_on_buffers() {
    check(
        "RWStructuredBuffer<uint> counters;
        RWBuffer<int> signed_values;
        StructuredBuffer<uint> read_only;
        [numthreads(1, 1, 1)]
        void main() {
            uint old;
            InterlockedAdd(counters[0], 1);
            InterlockedMin(signed_values[2], -4, old);
        }",
        expect![[r#"
            resource counters: RWStructuredBuffer<uint>, register(u0, space0) (implicit)
            resource signed_values: RWBuffer<int>, register(u1, space0) (implicit)
            resource read_only: StructuredBuffer<uint>, register(t0, space0) (implicit)
            fn main() -> void {
              local %old: uint
              atomic_add(counters[0u], 1u);
              %old = (uint)atomic_min(signed_values[2u], -4);
            }
            entry main: fn main, numthreads(1, 1, 1), inputs()
        "#]],
    );
    check(
        "StructuredBuffer<uint> read_only;
        [numthreads(1, 1, 1)]
        void main() { InterlockedAdd(read_only[0], 1); }",
        expect![[r#"
            3:38: error: the destination of 'InterlockedAdd' must be an lvalue in groupshared memory or a RW buffer
        "#]],
    );
}

#[test]
fn constant_buffers() {
    check(
        "struct Settings { float gain; uint4 flags; };
        ConstantBuffer<Settings> settings : register(b2);
        cbuffer Frame { float time; float2 size; };
        float loose;
        uint loose_count = 3;
        RWStructuredBuffer<float> output;
        [numthreads(1, 1, 1)]
        void main() {
            output[0] = settings.gain * time + size.y + loose + loose_count + settings.flags.w;
        }",
        expect![[r#"
            5:14: warning: initializer of global variable 'loose_count' is ignored: non-static globals are constant buffer members; use 'static const'
            struct Settings { float gain; uint4 flags; }
            struct Frame { float time; float2 size; }
            struct $Globals { float loose; uint loose_count; }
            resource settings: ConstantBuffer<Settings>, register(b2, space0)
            resource Frame: ConstantBuffer<Frame>, register(b1, space0) (implicit)
            resource $Globals: ConstantBuffer<$Globals>, register(b0, space0) (implicit)
            resource output: RWStructuredBuffer<float>, register(u0, space0) (implicit)
            fn main() -> void {
              output[0u] = (((((settings.gain * Frame.time) + Frame.size.y) + $Globals.loose) + (float)$Globals.loose_count) + (float)settings.flags.w);
            }
            entry main: fn main, numthreads(1, 1, 1), inputs()
        "#]],
    );
}

#[test]
fn groupshared_and_statics() {
    check(
        "groupshared float tile[8][8];
        static uint visits = 1;
        static float3 direction;
        [numthreads(8, 8, 1)]
        void main(uint3 t : SV_GroupThreadID) {
            tile[t.y][t.x] = visits;
            GroupMemoryBarrierWithGroupSync();
            visits += (uint)tile[t.x][t.y];
            direction.x = 1;
        }",
        expect![[r#"
            groupshared @tile: float[8][8]
            static @visits: uint
            static @direction: float3
            static_init {
              @visits = 1u;
              @direction = float3(0.0f, 0.0f, 0.0f);
            }
            fn main(in %t: uint3) -> void {
              @tile[%t.y][%t.x] = (float)@visits;
              barrier(group_memory, group_sync);
              @visits = (@visits + (uint)@tile[%t.x][%t.y]);
              @direction.x = 1.0f;
            }
            entry main: fn main, numthreads(8, 8, 1), inputs(GroupThreadId)
        "#]],
    );
    check(
        "groupshared float big[9000];
        [numthreads(1, 1, 1)] void main() {}",
        expect![[r#"
            1:19: error: total groupshared memory of 36000 bytes exceeds the limit of 32768 bytes
        "#]],
    );
}

#[test]
fn resource_misuse() {
    check(
        "RWStructuredBuffer<uint> buf;
        RWStructuredBuffer<uint> arr[2];
        static RWBuffer<uint> s;
        void f(RWStructuredBuffer<uint> b) {}
        [numthreads(1, 1, 1)]
        void main() { uint x = buf; buf.Foo(); buf.Load(0, 1); float v; v.Load(0); }",
        expect![[r#"
            3:9: error: resources cannot be 'static' or 'groupshared'
            6:32: error: resource 'buf' cannot be used as a value
            6:41: error: no member named 'Foo' in 'RWStructuredBuffer<uint>'
            6:60: error: cannot bind a non-lvalue argument to an out parameter
            6:75: error: member function call on a value of type 'float'
        "#]],
    );
}

#[test]
fn local_resource_variables_must_name_a_global_resource() {
    check(
        "RWBuffer<float> A : register(u0);\nRWBuffer<uint> B : register(u1);\n\
         [numthreads(1, 1, 1)] void main() {\n\
         RWBuffer<float> none;\n\
         RWBuffer<float> wrong = B;\n\
         RWBuffer<float> value = 1.0;\n\
         RWBuffer<float> ok = A;\n\
         float x = ok;\n\
         }",
        expect![[r#"
            4:17: error: local resource variable 'none' must be initialized with a global resource
            5:25: error: cannot initialize a 'RWBuffer<float>' with a 'RWBuffer<uint>'
            6:25: error: a local resource variable must be initialized with a global resource or an element of a resource array
            8:11: error: resource 'ok' cannot be used as a value (a local resource variable names one resource for good)
        "#]],
    );
}

#[test]
fn resource_parameters_take_global_resources_of_their_type() {
    check(
        "RWBuffer<float> A : register(u0);\nRWBuffer<uint> B : register(u1);\n\
         void f(RWBuffer<float> r, uint i) { r[i] = 1.0; }\n\
         [numthreads(1, 1, 1)] void main() {\n\
         f(B, 0);\n\
         f(2, 0);\n\
         }",
        expect![[r#"
            5:3: error: parameter 'r' is a 'RWBuffer<float>', but the argument is a 'RWBuffer<uint>'
            6:3: error: parameter 'r' takes a resource: pass a global 'RWBuffer<float>'
        "#]],
    );
}

/// `packoffset` on some members only, on a place a member cannot start, and
/// in a form that names no register.
#[test]
fn packoffset_errors() {
    check(
        "cbuffer A { float a : packoffset(c0); float b; };\n\
         cbuffer B { float3 c : packoffset(c0.z); };\n\
         cbuffer C { float d : packoffset(x1); };\n",
        expect![[r#"
            1:9: error: packoffset must be given on every member of a constant buffer, or on none
            2:35: error: 'c' cannot start at byte 8: a 'float3' there overlaps the member before it or crosses a 16-byte register (arrays, structs and matrices start on a register)
            3:34: error: invalid packoffset 'x1': expected c<register>, optionally with .x, .y, .z or .w
            1:1: error: missing entry point 'main'
              note: the file defines no function
        "#]],
    );
}
