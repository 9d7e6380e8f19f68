// Quad operations in a compute shader: linear quads before SM 6.6.
StructuredBuffer<float> In : register(t0);
RWStructuredBuffer<float4> Out : register(u0);
RWStructuredBuffer<uint> Flags : register(u1);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    float x = In[id.x];
    float4 r;
    r.x = QuadReadAcrossX(x);
    r.y = QuadReadAcrossY(x);
    r.z = QuadReadAcrossDiagonal(x);
    r.w = QuadReadLaneAt(x, 2) + QuadReadLaneAt(x, id.x);
    Out[id.x] = r;
    Flags[id.x] = (QuadAny(x > 3.0) ? 1 : 0) | (QuadAll(x > 1.0) ? 2 : 0);
}
