// `divergent_loop` on a `float` in [1, 2) with shading builtins in the
// body: `sqrt`, `mad`, `saturate`, `lerp`, `clamp` and a conversion. A
// variant for timing float builtins, over the suite kernel's buffers,
// unchecked.

StructuredBuffer<uint> Seeds : register(t0);
StructuredBuffer<uint> Trips : register(t1);
RWStructuredBuffer<uint> Output : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID)
{
    float x = asfloat((Seeds[dtid.x] & 0x007FFFFFu) | 0x3F800000u);
    uint n = Trips[dtid.x];
    for (uint i = 0; ; ++i)
    {
        bool more = i < n;
        if (!WaveActiveAnyTrue(more))
            break;
        if (more)
        {
            float s = sqrt(x) * 0.75f;
            x = saturate(mad(s, 1.25f, -0.25f)) + lerp(x, 2.0f, 0.125f);
            x = clamp(x * 1.5f, 0.5f, 3.0f) + (float)(i & 3u) * 0.0625f;
        }
    }
    Output[dtid.x] = asuint(x) ^ (uint)(x * 1000.0f);
}
