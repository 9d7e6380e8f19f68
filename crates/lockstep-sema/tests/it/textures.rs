//! Textures without sampling: declarations and bindings, texel access,
//! `Load`, `GetDimensions`, and their diagnostics.

use expect_test::expect;

use crate::check;

#[test]
fn texture_declarations_and_bindings() {
    check(
        "Texture1D<uint> a;
        Texture2D<float> b : register(t3);
        Texture2DArray<float2> c;
        Texture3D d;
        RWTexture1D<int> e;
        RWTexture2D<float4> f : register(u2, space1);
        RWTexture2DArray<uint> g;
        RWTexture3D<half3> h;
        [numthreads(1, 1, 1)]
        void main() {}",
        expect![[r#"
            resource a: Texture1D<uint>, register(t0, space0) (implicit)
            resource b: Texture2D<float>, register(t3, space0)
            resource c: Texture2DArray<float2>, register(t1, space0) (implicit)
            resource d: Texture3D<float4>, register(t2, space0) (implicit)
            resource e: RWTexture1D<int>, register(u0, space0) (implicit)
            resource f: RWTexture2D<float4>, register(u2, space1)
            resource g: RWTexture2DArray<uint>, register(u1, space0) (implicit)
            resource h: RWTexture3D<float3>, register(u2, space0) (implicit)
            fn main() -> void {
            }
            entry main: fn main, numthreads(1, 1, 1), inputs()
        "#]],
    );
}

#[test]
fn texel_access_and_load() {
    check(
        "Texture2D<float> depth;
        Texture2DArray<uint2> layers;
        Texture3D<float4> volume;
        Texture1D<int> line;
        RWTexture2D<float4> image;
        RWTexture1D<uint> counts;
        [numthreads(8, 8, 1)]
        void main(uint3 id : SV_DispatchThreadID, uint gi : SV_GroupIndex) {
            float z = depth[id.xy] + depth.Load(int3(id.xy, 0)) + depth.Load(int3(1, 2, gi));
            uint2 l = layers[id] + layers.Load(int4(id, 0));
            image[id.xy] = volume[uint3(id.x, 1, 2)];
            image[id.xy].w = line[gi] + line.Load(int2(gi, 1)) + image.Load(int2(id.xy)).x;
            counts[gi] += 1;
            InterlockedAdd(counts[0], 1);
        }",
        expect![[r#"
            resource depth: Texture2D<float>, register(t0, space0) (implicit)
            resource layers: Texture2DArray<uint2>, register(t1, space0) (implicit)
            resource volume: Texture3D<float4>, register(t2, space0) (implicit)
            resource line: Texture1D<int>, register(t3, space0) (implicit)
            resource image: RWTexture2D<float4>, register(u0, space0) (implicit)
            resource counts: RWTexture1D<uint>, register(u1, space0) (implicit)
            fn main(in %id: uint3, in %gi: uint) -> void {
              local %z: float
              local %l: uint2
              %z = ((depth[%id.xy] + depth[bitcast<uint2>(int3((int2)%id.xy, 0).xy)]) + depth.mips[bitcast<uint>(int3(1, 2, (int)%gi).z)][bitcast<uint2>(int3(1, 2, (int)%gi).xy)]);
              %l = (layers[%id] + layers[bitcast<uint3>(int4((int3)%id, 0).xyz)]);
              image[%id.xy] = volume[uint3(%id.x, 1u, 2u)];
              image[%id.xy].w = ((float)(line[%gi] + line.mips[bitcast<uint>(int2((int)%gi, 1).y)][bitcast<uint>(int2((int)%gi, 1).x)]) + image[bitcast<uint2>((int2)%id.xy)].x);
              counts[%gi] = (counts[%gi] + 1u);
              atomic_add(counts[0u], 1u);
            }
            entry main: fn main, numthreads(8, 8, 1), inputs(DispatchThreadId, GroupIndex)
        "#]],
    );
}

#[test]
fn get_dimensions_with_and_without_mip_level() {
    check(
        "Texture2D<float> t2;
        Texture2DArray<float> ta;
        Texture3D<float> t3;
        Texture1D<float> t1;
        RWTexture2D<uint> rw;
        [numthreads(1, 1, 1)]
        void main(uint gi : SV_GroupIndex) {
            uint w, h, d, levels;
            float fw;
            t2.GetDimensions(w, h);
            t2.GetDimensions(0, w, h, levels);
            ta.GetDimensions(gi, fw, h, d, levels);
            t3.GetDimensions(w, h, d);
            t1.GetDimensions(1, w, levels);
            rw.GetDimensions(w, h);
        }",
        expect![[r#"
            resource t2: Texture2D<float>, register(t0, space0) (implicit)
            resource ta: Texture2DArray<float>, register(t1, space0) (implicit)
            resource t3: Texture3D<float>, register(t2, space0) (implicit)
            resource t1: Texture1D<float>, register(t3, space0) (implicit)
            resource rw: RWTexture2D<uint>, register(u0, space0) (implicit)
            fn main(in %gi: uint) -> void {
              local %w: uint
              local %h: uint
              local %d: uint
              local %levels: uint
              local %fw: float
              ((%w = t2.width()), (%h = t2.height()));
              ((%w = t2.width()), ((%h = t2.height()), (%levels = t2.levels())));
              ((%fw = (float)select<uint>((%gi < ta.levels()), select<uint>(((ta.width() >> %gi) == 0u), 1u, (ta.width() >> %gi)), 0u)), ((%h = select<uint>((%gi < ta.levels()), select<uint>(((ta.height() >> %gi) == 0u), 1u, (ta.height() >> %gi)), 0u)), ((%d = select<uint>((%gi < ta.levels()), ta.elements(), 0u)), (%levels = ta.levels()))));
              ((%w = t3.width()), ((%h = t3.height()), (%d = t3.depth())));
              ((%w = select<uint>((1u < t1.levels()), select<uint>(((t1.width() >> 1u) == 0u), 1u, (t1.width() >> 1u)), 0u)), (%levels = t1.levels()));
              ((%w = rw.width()), (%h = rw.height()));
            }
            entry main: fn main, numthreads(1, 1, 1), inputs(GroupIndex)
        "#]],
    );
}

#[test]
fn texture_diagnostics() {
    check(
        "Texture2D<float> t;
        Texture2DArray<float> ta;
        RWTexture1D<uint> rw;
        Texture3D<bool> bad_texel;
        Texture2D<float, 2> bad_args;
        [numthreads(1, 1, 1)]
        void main(uint3 id : SV_DispatchThreadID) {
            float a = t[id];
            float b = t[id.x];
            float c = ta[id.xy];
            float d = t.Load(int2(id.xy));
            uint e = rw.Load(int2(1, 0));
            float f = t.Load(int3(0, 0, 0), int2(1, 1), w);
            t[id.xy] = 1;
            uint w, h, levels;
            t.GetDimensions(w);
            rw.GetDimensions(0, w, levels);
            t.Sample(w);
        }",
        expect![[r#"
            4:9: error: the element type of 'Texture3D' must be a numeric scalar or vector, but is 'bool'
            5:9: error: 'Texture2D' requires one template argument
            8:25: error: the coordinate of 'Texture2D<float>' must have 2 components (x, y), but has type 'uint3'
            9:25: error: the coordinate of 'Texture2D<float>' must have 2 components (x, y), but has type 'uint'
            10:26: error: the coordinate of 'Texture2DArray<float>' must have 3 components (x, y, slice), but has type 'uint2'
            11:30: error: the location of 'Texture2D<float>' must have 3 components (x, y, mip level), but has type 'int2'
            12:30: error: the location of 'RWTexture1D<uint>' must have 1 component (x), but has type 'int2'
            13:57: error: use of undeclared identifier 'w'
            14:13: error: cannot assign to a read-only resource
            16:13: error: no matching function for call to 'GetDimensions'
              note: candidate function not viable: requires 2 or 4 arguments, but 1 was provided
            17:13: error: no matching function for call to 'GetDimensions'
              note: candidate function not viable: requires 1 argument, but 3 were provided
            18:13: error: 'Sample' takes 2 arguments, or 3 with an offset, not 1
        "#]],
    );
}
