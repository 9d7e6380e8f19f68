// `divergent_loop` with `?:` and `select` in the body: arms cheap enough
// to run on every lane, then picked per lane. A variant for timing
// conditionals, over the suite kernel's buffers, unchecked.

StructuredBuffer<uint> Seeds : register(t0);
StructuredBuffer<uint> Trips : register(t1);
RWStructuredBuffer<uint> Output : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID)
{
    uint x = Seeds[dtid.x];
    uint n = Trips[dtid.x];
    for (uint i = 0; ; ++i)
    {
        bool more = i < n;
        if (!WaveActiveAnyTrue(more))
            break;
        if (more)
        {
            x = x * 1664525u + 1013904223u;
            x ^= (x & 1u) != 0 ? x >> 13 : x << 7;
            x = x > 0x80000000u ? x - 0x12345u : x + i;
            x += select((float)(x >> 8) < 4194304.0f, 3u, 5u);
            x = (x << 5) | (x >> 27);
        }
    }
    Output[dtid.x] = x;
}
