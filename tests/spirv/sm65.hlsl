// SM 6.5: WaveMatch and WaveMultiPrefix*.
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint4> Out : register(u0);
RWStructuredBuffer<float> OutF : register(u1);

[numthreads(32, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    uint key = In[id.x] % 5;
    float f = float(In[id.x]);
    uint4 mask = WaveMatch(key);
    uint4 r = mask;
    r.x += WaveMultiPrefixSum(key, mask) + WaveMultiPrefixProduct(key + 1, mask);
    r.y += WaveMultiPrefixCountBits(key > 2, mask);
    r.z += WaveMultiPrefixBitAnd(key, mask) + WaveMultiPrefixBitOr(key, mask) + WaveMultiPrefixBitXor(key, mask);
    r.w += WaveMatch(float2(f, 1.0)).x;
    Out[id.x] = r;
    OutF[id.x] = WaveMultiPrefixSum(f, WaveMatch(f));
}
