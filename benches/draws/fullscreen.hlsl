// The draw benchmark: a full-screen pass whose pixel shader does about 20
// operations per pixel (a procedural pattern, no texture, no wave
// operation).

float4 VSMain(float2 position : POSITION) : SV_Position {
    return float4(position, 0, 1);
}

float4 PSMain(float4 position : SV_Position) : SV_Target {
    float2 uv = position.xy * (1.0 / 1024.0);
    float2 d = uv - 0.5;
    float r2 = dot(d, d);
    float wave = sin(r2 * 60.0) * 0.5 + 0.5;
    float stripes = frac(uv.x * 8.0 + uv.y * 4.0);
    float vignette = saturate(1.0 - r2 * 2.0);
    float3 color = float3(wave, stripes, uv.y) * vignette;
    color = lerp(color, float3(0.2, 0.3, 0.4), uv.x * 0.25);
    return float4(color, 1);
}
