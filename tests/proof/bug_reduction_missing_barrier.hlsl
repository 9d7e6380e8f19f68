// Tree reduction of each group's inputs. Bug: no barrier between the rounds
// of the loop, so waves read partial sums other waves are still writing. (numthreads 256)
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);

groupshared uint tile[256];

[numthreads(256, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID, uint3 gid : SV_GroupID, uint gi : SV_GroupIndex)
{
    tile[gi] = In[dtid.x];
    GroupMemoryBarrierWithGroupSync();

    for (uint s = 128; s > 0; s >>= 1)
    {
        if (gi < s)
            tile[gi] += tile[gi + s];
    }

    if (gi == 0)
        Out[gid.x] = tile[0];
}
