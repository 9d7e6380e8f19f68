// `divergent_loop_int.hlsl` with a signed division and remainder by
// literals in the body (`x / 7`, `x % 5`): a variant for timing them,
// over the suite kernel's buffers, unchecked.

StructuredBuffer<uint> Seeds : register(t0);
StructuredBuffer<uint> Trips : register(t1);
RWStructuredBuffer<uint> Output : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID)
{
    int x = Seeds[dtid.x];
    int n = Trips[dtid.x];
    for (int i = 0; ; ++i)
    {
        bool more = i < n;
        if (!WaveActiveAnyTrue(more))
            break;
        if (more)
        {
            x = x * 1664525 + 1013904223;
            x ^= x >> 13;
            x = (x << 5) | ((x >> 27) & 31);
            x += i * 0x1E3779B9 + x / 7 - x % 5;
        }
    }
    Output[dtid.x] = (uint)x;
}
