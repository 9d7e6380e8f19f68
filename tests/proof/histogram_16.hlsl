// 16-bin histogram of the low 4 bits: groupshared atomic bins, flushed once
// per group into Total with Total.InterlockedAdd. Clean. (numthreads 256)
StructuredBuffer<uint> In : register(t0);
RWByteAddressBuffer Total : register(u1);

#define BINS 16
groupshared uint bins[BINS];

[numthreads(256, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID, uint gi : SV_GroupIndex)
{
    if (gi < BINS)
        bins[gi] = 0;
    GroupMemoryBarrierWithGroupSync();

    InterlockedAdd(bins[In[dtid.x] & (BINS - 1)], 1);
    GroupMemoryBarrierWithGroupSync();

    if (gi < BINS)
        Total.InterlockedAdd(gi * 4, bins[gi]);
}
