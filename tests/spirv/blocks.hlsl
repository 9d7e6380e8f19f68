// flags: -T cs_6_6
// SM 6.6 compute quads in 2x2 blocks of SV_GroupThreadID, and numWaves.
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(8, 8, 1)]
void main(uint3 gtid : SV_GroupThreadID, uint gi : SV_GroupIndex) {
    uint v = gtid.x * 16 + gtid.y;
    Out[gi] = QuadReadAcrossX(v) + QuadReadAcrossY(v) * 256;
}
