// Every SM 6.0 wave intrinsic, on the scalar and vector types HLSL allows.
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint4> Out : register(u0);
RWStructuredBuffer<float4> OutF : register(u1);
RWStructuredBuffer<int2> OutI : register(u2);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID, uint gi : SV_GroupIndex) {
    uint x = In[id.x];
    float f = float(x) * 0.5;
    float3 v = float3(f, -f, f * 2);
    int2 iv = int2(x, -int(x));
    bool odd = (x & 1) != 0;
    uint4 r = 0;
    r.x = WaveIsFirstLane() ? 1 : 0;
    r.y = WaveGetLaneCount() + WaveGetLaneIndex();
    r.z = (WaveActiveAnyTrue(odd) ? 1 : 0) + (WaveActiveAllTrue(odd) ? 2 : 0);
    r += WaveActiveBallot(odd);
    r.w += WaveReadLaneFirst(x) + WaveReadLaneAt(x, gi + 3);
    r.x += WaveActiveAllEqual(x) ? 1 : 0;
    r.y += WaveActiveCountBits(odd) + WavePrefixCountBits(odd);
    r.z += WaveActiveSum(x) + WaveActiveProduct(x) + WaveActiveMin(x) + WaveActiveMax(x);
    r.w += WaveActiveBitAnd(x) | WaveActiveBitOr(x) ^ WaveActiveBitXor(x);
    r.x += WavePrefixSum(x) + WavePrefixProduct(x);
    if (odd) {
        r.y += WaveActiveSum(x);
    }
    Out[id.x] = r;
    float4 o = 0;
    o.xyz = WaveActiveSum(v) + WavePrefixSum(v) + WaveActiveMax(v) + WaveActiveMin(v);
    o.w = WaveActiveProduct(f) + WavePrefixProduct(f) + WaveReadLaneAt(f, 0);
    o.x += all(WaveActiveAllEqual(v)) ? 1 : 0;
    OutF[id.x] = o;
    OutI[id.x] = WaveActiveSum(iv) + WaveActiveMin(iv) + WaveActiveMax(iv) + WaveReadLaneFirst(iv);
}
