#define GROUP 64
struct Item { uint key; float value; };
StructuredBuffer<Item> Input : register(t0);
RWStructuredBuffer<uint> Output : register(u0);
RWByteAddressBuffer Counter : register(u1, space0);
cbuffer Params : register(b0) { uint count; float scale; };
groupshared uint tile[GROUP];
static const uint kMask = 0xFFu;

uint helper(in uint a, out uint b, inout float c) { b = a * 2u; c *= 0.5f; return a >> 1; }

[numthreads(GROUP, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID, uint gi : SV_GroupIndex)
{
    bool has = (dtid.x < count) && (Input[dtid.x].key & kMask) != 0;
    uint offset = WavePrefixCountBits(has);
    uint total = WaveActiveCountBits(has);
    uint base;
    if (WaveIsFirstLane()) { Counter.InterlockedAdd(0, total, base); }
    base = WaveReadLaneFirst(base);
    [unroll] for (uint i = 0; i < 4; ++i) { tile[gi] += i; }
    GroupMemoryBarrierWithGroupSync();
    switch (gi & 3) { case 0: case 1: tile[gi] = 1; default: break; }
    float4 v = float4(Input[0].value.xx, 0, 1);
    v.yz = (float2)scale;
    if (has) Output[base + offset] = asuint(v.x) ^ (uint)helper(1, base, v.w);
}
