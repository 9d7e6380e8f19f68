// Transposes each group's 16x16 tile through groupshared memory, with a
// barrier between the loads and the transposed reads. Clean. (numthreads 256)
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);

#define TILE 16
groupshared uint tile[TILE * TILE];

[numthreads(TILE * TILE, 1, 1)]
void main(uint3 gid : SV_GroupID, uint gi : SV_GroupIndex)
{
    uint x = gi % TILE;
    uint y = gi / TILE;
    uint base = gid.x * TILE * TILE;

    tile[y * TILE + x] = In[base + y * TILE + x];
    GroupMemoryBarrierWithGroupSync();

    Out[base + y * TILE + x] = tile[x * TILE + y];
}
