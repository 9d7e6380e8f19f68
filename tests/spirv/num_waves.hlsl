// [numWaves] groups, with the group's wave index and count.
RWStructuredBuffer<uint> Out : register(u0);

[numWaves(3)]
[WaveSize(16, 64)]
void main(uint3 group : SV_GroupID) {
    uint at = (group.x * GetGroupWaveCount() + GetGroupWaveIndex()) * WaveGetLaneCount() + WaveGetLaneIndex();
    Out[at] = GetGroupWaveIndex() * 1000 + GetGroupWaveCount() * 100 + WaveGetLaneIndex();
}
