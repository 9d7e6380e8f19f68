// `divergent_loop` on `int`: the same loop with signed numbers, so its
// orderings and shifts right are the signed ones (`i < n`, `x >> 13`) and
// its loads convert `uint` to `int`. The results differ from the suite
// kernel's (signed shifts), and nothing checks them: a variant for timing
// the signed paths, over the suite kernel's buffers.

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
            x += i * 0x1E3779B9;
        }
    }
    Output[dtid.x] = (uint)x;
}
