// `divergent_loop` with a `uint` → `float` → `uint` round trip in the
// body: a variant for timing conversions, over the suite kernel's
// buffers, unchecked.

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
            x ^= x >> 13;
            x = (x << 5) | (x >> 27);
            x += i * 0x9E3779B9u + (uint)((float)x * 0.25f);
        }
    }
    Output[dtid.x] = x;
}
