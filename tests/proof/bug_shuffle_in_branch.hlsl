// Pairs odd inputs with their neighbour lane. Bug: WaveReadLaneAt runs inside a
// data-dependent branch, so the partner lane it reads may be inactive. (numthreads 64)
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID)
{
    uint v = In[dtid.x];
    if (v & 1)
    {
        uint partner = WaveReadLaneAt(v, WaveGetLaneIndex() ^ 1);
        Out[dtid.x] = v + partner;
    }
}
