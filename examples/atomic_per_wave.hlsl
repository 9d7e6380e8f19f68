// One atomic per wave: WaveIsFirstLane guards the InterlockedAdd and
// WaveReadLaneFirst broadcasts its result (the "Delegating Work to a Single
// Lane" example). The first lane reserves a slot for every active lane of
// its wave; each lane then marks its own slot. Whatever the wave size and
// the order waves run in, every slot is marked exactly once.

RWByteAddressBuffer Counter : register(u0); // the article's `Buffer`
RWStructuredBuffer<uint> Marks : register(u1);

static const uint bufferOffset = 0;

[numthreads(64, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID)
{
    uint addend = WaveActiveCountBits(true);
    uint oldValue;
    if (WaveIsFirstLane())
    {
        Counter.InterlockedAdd(bufferOffset, addend, oldValue);
    }
    oldValue = WaveReadLaneFirst(oldValue);
    uint slot = oldValue + WavePrefixCountBits(true);
    InterlockedAdd(Marks[slot], 1);
}
