// A full-screen pass drawing rings and a grid with lines one pixel wide
// whatever their spacing: |ddx| + |ddy| (fwidth), taken across each 2x2
// quad of pixels, says how fast a value changes per pixel, and each line
// fades over that distance. The fine derivatives (one per row and column
// of the quad) are the ones every driver computes alike; `fwidth` is
// coarse in DXC's reading, fine on lavapipe.
//
//   lockstep run examples/draw/rings.yaml examples/draw/rings.hlsl \
//       examples/draw/rings.hlsl -r Target -o rings.png

float4 VSMain(float2 position : POSITION) : SV_Position {
    return float4(position, 0, 1);
}

// 1 on a line where `v` crosses an integer, fading to 0 a pixel away.
float lines(float v) {
    float distance = abs(frac(v - 0.5) - 0.5);
    float width = abs(ddx_fine(v)) + abs(ddy_fine(v));
    return 1 - saturate(distance / width);
}

float4 PSMain(float4 position : SV_Position) : SV_Target {
    float2 uv = position.xy / 256.0;
    float radius = length(uv - 0.5) * 12.0;
    float ring = lines(radius * radius * 0.25);
    float grid = max(lines(uv.x * 8.0), lines(uv.y * 8.0));
    float3 background = lerp(float3(0.05, 0.1, 0.3), float3(0.3, 0.05, 0.2), uv.y);
    float3 color = lerp(background, float3(1.0, 0.8, 0.3), ring);
    color = lerp(color, float3(0.6, 0.7, 0.8), grid * 0.5);
    return float4(color, 1);
}
