// An ALU-heavy loop whose trip count differs per lane: the wave keeps
// looping while any lane has work left (WaveActiveAnyTrue), and lanes that
// are done sit out the body.

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
            x += i * 0x9E3779B9u;
        }
    }
    Output[dtid.x] = x;
}
