// `divergent_loop` on a `float`: `* + - /` in the body instead of the
// integer hash. A variant for timing float arithmetic, over the suite
// kernel's buffers, unchecked.

StructuredBuffer<uint> Seeds : register(t0);
StructuredBuffer<uint> Trips : register(t1);
RWStructuredBuffer<uint> Output : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID)
{
    float x = asfloat(Seeds[dtid.x] & 0x3FFFFFFFu);
    uint n = Trips[dtid.x];
    for (uint i = 0; ; ++i)
    {
        bool more = i < n;
        if (!WaveActiveAnyTrue(more))
            break;
        if (more)
        {
            x = x * 1.0001f + 0.5f;
            x = x - x * 0.25f;
            x = x / 1.5f + 2.0f * x;
        }
    }
    Output[dtid.x] = asuint(x);
}
