// flags: -T cs_6_6
// 64-bit atomics on buffers, through the buffer's 64-bit view.
RWStructuredBuffer<uint64_t> Wide : register(u0);
[numthreads(64, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
    InterlockedAdd(Wide[0], 0x100000001ull);
    uint64_t old;
    InterlockedMax(Wide[1], uint64_t(i) << 33, old);
    InterlockedOr(Wide[2 + (i & 1)], 1ull << (i & 63));
}
