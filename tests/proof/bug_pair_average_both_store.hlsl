// Halves a row by averaging neighbouring pairs. Bug: both threads of each
// pair store, each its own value, at the pair's slot: the two lanes store
// at once and which value lands differs between GPUs. (numthreads 64)
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);
RWByteAddressBuffer Total : register(u1);

[numthreads(64, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID)
{
    uint v = In[dtid.x];
    uint neighbour = In[dtid.x ^ 1u];
    Out[dtid.x / 2u] = (v + neighbour) / 2u + (dtid.x & 1u);
}
