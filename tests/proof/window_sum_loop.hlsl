// Each thread accumulates a sliding window of 8 inputs into its own output
// word, wrapping around the end of In. Clean. (numthreads 64)
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID)
{
    Out[dtid.x] = 0;
    for (uint k = 0; k < 8; k++)
        Out[dtid.x] += In[(dtid.x + k) & 1023];
}
