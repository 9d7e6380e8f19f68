// Memory: byte-address loads and stores of every width, structured
// elements with nested arrays, matrices, constant buffers, groupshared
// arrays, atomics, append and consume counters, out-of-range indices.
struct Item {
    float3 pos;
    uint flags[2];
    float2x3 m;
    row_major float3x2 n;
};

cbuffer Params : register(b0) {
    float4 scale;
    uint count;
    float offsets[4];
};

StructuredBuffer<Item> Items : register(t0);
ByteAddressBuffer Raw : register(t1);
RWByteAddressBuffer RawOut : register(u0);
RWStructuredBuffer<Item> ItemsOut : register(u1);
AppendStructuredBuffer<uint> Appended : register(u2);
ConsumeStructuredBuffer<uint> Consumed : register(u3);
RWStructuredBuffer<uint> Counters : register(u4);
RWBuffer<float4> Typed : register(u5);

groupshared uint tile[64];
groupshared float2 pairs[8];

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID, uint gi : SV_GroupIndex) {
    Item it = Items[id.x];
    it.pos *= scale.xyz;
    it.flags[id.x & 1] += count;
    it.m[1] = it.m[0] * offsets[id.x & 3];
    it.n._m00 = mul(it.m, it.pos).x;
    ItemsOut[id.x] = it;
    ItemsOut[id.x + 1].pos.y = 2.0;

    uint a = Raw.Load(id.x * 4);
    uint2 b = Raw.Load2(id.x * 8 + 4);
    float4 c = Raw.Load<float4>(id.x * 16);
    uint64_t d = Raw.Load<uint64_t>(id.x * 8);
    RawOut.Store(id.x * 4, a + b.y);
    RawOut.Store3(id.x * 12, uint3(b, a));
    RawOut.Store<float4>(id.x * 16, c);
    RawOut.Store<uint64_t>(id.x * 8, d + 1);
    uint old;
    RawOut.InterlockedAdd(0, 1, old);
    RawOut.InterlockedMax(4, a);
    RawOut.InterlockedCompareExchange(8, 0, a, old);

    tile[gi] = a;
    pairs[gi & 7] = float2(c.x, c.y);
    GroupMemoryBarrierWithGroupSync();
    uint sum = tile[(gi + 1) & 63] + tile[gi ^ 5];
    InterlockedAdd(tile[0], sum, old);
    InterlockedOr(tile[gi % 3], 4);
    AllMemoryBarrierWithGroupSync();

    if (a & 1) Appended.Append(sum);
    uint taken = (a & 2) ? Consumed.Consume() : 0;
    uint n = Counters.IncrementCounter();
    uint local[4] = { a, b.x, b.y, taken };
    Counters[id.x] = local[id.x & 7] + n + uint(pairs[gi & 7].y);
    Typed[id.x] = float4(c.xy, Typed[id.x].zw);
    uint len, stride;
    Items.GetDimensions(len, stride);
    uint bytes;
    Raw.GetDimensions(bytes);
    Counters[0] = len + stride + bytes;
}
