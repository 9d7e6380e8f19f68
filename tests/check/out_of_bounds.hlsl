RWStructuredBuffer<uint> Out : register(u0);
groupshared uint Tile[64];
[numthreads(64, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    Tile[gi] = gi;
    GroupMemoryBarrierWithGroupSync();
    Out[gi] = Tile[gi + 1]; // FINDING: out-of-bounds
}
