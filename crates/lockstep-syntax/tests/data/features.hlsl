// A tour of the syntax the front end accepts.
#define STR(x) #x
#define CAT(a, b) a ## b
#define SQUARE(x) ((x) * (x))
#define LOG(fmt, ...) printf(fmt, ## __VA_ARGS__)
#if defined(__HLSL_VERSION) && __HLSL_VERSION >= 2021 && (1 << 2) == 4
#define MODERN 1
#else
#define MODERN 0
#endif

typedef vector<float, 4> f4;
typedef uint IndexList[8];

struct Light
{
    float3 position : POSITION;
    nointerpolation uint flags;
    row_major float4x4 transform;
    float weights[4];
};

struct Pair { uint a, b; } gPair;

cbuffer Frame : register(b0, space1)
{
    float4 tint : packoffset(c0);
    float exposure : packoffset(c1.x);
    uint lightCount;
};

tbuffer Extra : register(t9) { float4 extra; }

ConstantBuffer<Light> gLight : register(b2);
StructuredBuffer<Light> gLights : register(t0);
RWStructuredBuffer<vector<uint, 2>> gPairs : register(u0);
RWBuffer<float4> gColors : register(u1);
ByteAddressBuffer gRaw : register(t1);
RWTexture2D<float4> gImage : register(u2, space0);
SamplerState gSampler : register(s0);
groupshared float gScratch[64][2];
static const uint kTable[4] = { 1, 2, 4, 8 };
static const float kScale = 1.5e-1f, kHalf = .5h;

float shade(in Light light, out float3 dir, inout uint counter, uint mode = 0u)
{
    dir = normalize(light.position);
    counter += (light.flags >> 4) & 0xFu;
    return mode == 0 ? saturate(dot(dir, float3(0, 1, 0))) : (float)SQUARE(counter) * kScale;
}

[shader("compute")]
[numthreads(8, 8, 1)]
[WaveSize(32)]
void main(uint3 tid : SV_DispatchThreadID, uint3 gtid : SV_GroupThreadID, uint gi : SV_GroupIndex)
{
    uint CAT(local, Count) = 0;
    float3 dir;
    float total = 0.0;
    [loop] for (uint i = 0, j = lightCount; i < j; ++i, --j)
    {
        Light l = gLights[i];
        total += shade(l, dir, localCount);
        if (WaveActiveAnyTrue(total > 10.0f)) { break; } else if (i == 3) { continue; }
    }
    uint lane = WaveGetLaneIndex();
    uint2 pair = gPairs.Load(gi);
    float2 raw = asfloat(gRaw.Load2(gi * 8));
    float4 packed = gRaw.Load<float4>(0);
    gScratch[gi][0] = WavePrefixSum(total);
    GroupMemoryBarrierWithGroupSync();
    int k = 0;
    do { k++; } while (k < (int)(gi % 3u));
    while (k-- > 0) { total -= k; }
    switch (lane & 3)
    {
    case 0:
    case 1 + 1:
        total *= 2;
    case 1:
        total = -total;
        break;
    default:
        [branch] if (!(lane > 16) || lane != ~0u) total /= 2; else discard;
    }
    f4 color = (f4)(total * exposure);
    color.rgb = color.bgr * tint.xyz;
    color = lerp(color, float4(1.xxx, 1), 0.25);
    gImage[tid.xy] = MODERN ? color : extra;
    gColors[gi] = (color.x < color.y) ? color : (float4)0;
    InterlockedAdd(gPairs[0].x, 1u);
    uint old;
    InterlockedMax(gPairs[1].y, lane, old);
    const uint flags = gPair.a | gPair.b ^ kTable[gi & 3] << 1;
    matrix<float, 2, 2> m = { 1, 0, 0, 1 };
    float3x3 rot = (float3x3)gLight.transform;
    LOG(STR(done));
    LOG("%d", __LINE__);
}
