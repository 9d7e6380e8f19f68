// Textures as their texels in row-major order, their sizes, and sampling
// through a sampler's state.
Texture2D<float4> Albedo : register(t0);
Texture2DArray<uint> Layers : register(t1);
Texture3D<float> Volume : register(t2);
RWTexture2D<float4> Target : register(u0);
RWTexture1D<uint> Counts : register(u1);
SamplerState Linear : register(s0);

[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    uint w, h;
    Albedo.GetDimensions(w, h);
    float2 uv = (float2(id.xy) + 0.5) / float2(w, h);
    float4 c = Albedo.Load(int3(id.xy, 0)) + Albedo.SampleLevel(Linear, uv, 0);
    uint layer = Layers[uint3(id.xy, id.x & 1)];
    float v = Volume[uint3(id.xy, 0)];
    Target[id.xy] = c * v + layer;
    InterlockedAdd(Counts[id.x & 3], 1);
}
