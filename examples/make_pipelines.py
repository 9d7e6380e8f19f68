#!/usr/bin/env python3
"""Writes the example pipelines with expected results computed here, in
plain Python, independently of the engine."""

import random
import struct


def flow(values, per_line=16):
    lines = []
    for i in range(0, len(values), per_line):
        lines.append(", ".join(str(v) for v in values[i:i + per_line]))
    return "[ " + ",\n            ".join(lines) + " ]"


def pipeline(groups, buffers, results, bindings, entry="main"):
    size = groups if isinstance(groups, list) else [groups, 1, 1]
    out = ["---", "Shaders:", "  - Stage: Compute", f"    Entry: {entry}"]
    if size != [1, 1, 1]:
        out += ["DispatchParameters:",
                f"  DispatchGroupCount: [{size[0]}, {size[1]}, {size[2]}]"]
    out.append("Buffers:")
    for buffer in buffers:
        name, fmt, data = buffer[:3]
        out += [f"  - Name: {name}", f"    Format: {fmt}"]
        if len(buffer) > 3:
            width, height = buffer[3]
            out.append(f"    OutputProps: {{ Height: {height}, Width: {width}, Depth: 1 }}")
        if isinstance(data, int):
            out.append(f"    FillSize: {data}")
        else:
            out.append(f"    Data: {flow(data)}")
    out.append("Results:")
    for actual, expected in results:
        out += [f"  - Result: {actual}", "    Rule: BufferExact",
                f"    Actual: {actual}", f"    Expected: {expected}"]
    out += ["DescriptorSets:", "  - Resources:"]
    for name, kind, reg in bindings:
        out += [f"    - Name: {name}", f"      Kind: {kind}",
                "      DirectXBinding:", f"        Register: {reg}",
                "        Space: 0"]
    return "\n".join(out) + "\n...\n"


def compact_write():
    groups, size = 2, 64
    inputs = list(range(groups * size))
    output, counters = [], []
    for g in range(groups):
        kept = [v for v in inputs[g * size:(g + 1) * size] if v % 3 != 0]
        counters.append(len(kept))
        output += kept + [0] * (size - len(kept))
    return pipeline(groups, [
        ("Input", "UInt32", inputs),
        ("Output", "UInt32", 4 * groups * size),
        ("Counter", "UInt32", 4 * groups),
        ("ExpectedOutput", "UInt32", output),
        ("ExpectedCounter", "UInt32", counters),
    ], [("Output", "ExpectedOutput"), ("Counter", "ExpectedCounter")], [
        ("Input", "StructuredBuffer", 0),
        ("Output", "RWStructuredBuffer", 0),
        ("Counter", "RWByteAddressBuffer", 1),
    ])


def ordered_append(name, groups, size, max_items, seed):
    rng = random.Random(seed)
    counts = [rng.randrange(max_items + 1) for _ in range(groups * size)]
    output, totals = [], []
    for g in range(groups):
        items = []
        for t in range(g * size, (g + 1) * size):
            items += [t * 10 + i for i in range(counts[t])] if name == "ordered_append" else [t] * counts[t]
        totals.append(len(items))
        output += items + [0] * (size * max_items - len(items))
    out_name, counter_name = ("Output", "BufferSize") if name == "ordered_append" else ("DataBuffer", "CounterBuffer")
    return pipeline(groups, [
        ("ItemCounts", "UInt32", counts),
        (out_name, "UInt32", 4 * groups * size * max_items),
        (counter_name, "UInt32", 4 * groups),
        ("Expected" + out_name, "UInt32", output),
        ("Expected" + counter_name, "UInt32", totals),
    ], [(out_name, "Expected" + out_name), (counter_name, "Expected" + counter_name)], [
        ("ItemCounts", "StructuredBuffer", 0),
        (out_name, "RWStructuredBuffer", 0),
        (counter_name, "RWByteAddressBuffer", 1),
    ])


def atomic_per_wave():
    groups, size = 4, 64
    n = groups * size
    return pipeline(groups, [
        ("Counter", "UInt32", 4),
        ("Marks", "UInt32", 4 * n),
        ("ExpectedCounter", "UInt32", [n]),
        ("ExpectedMarks", "UInt32", [1] * n),
    ], [("Counter", "ExpectedCounter"), ("Marks", "ExpectedMarks")], [
        ("Counter", "RWByteAddressBuffer", 0),
        ("Marks", "RWStructuredBuffer", 1),
    ])


def uniform_fast_path():
    groups, size = 4, 32
    rng = random.Random(5)
    inputs = [rng.randrange(1000) for _ in range(groups * size)]
    # A few large inputs send their waves down the general path.
    for i, v in [(5, 70000), (40, 65536), (77, 100000), (127, 92681)]:
        inputs[i] = v

    def tri(n):
        n = min(n, 100000)
        return min(n * (n + 1) // 2, 0xFFFFFFFF)

    return pipeline(groups, [
        ("Input", "UInt32", inputs),
        ("Output", "UInt32", 4 * groups * size),
        ("ExpectedOutput", "UInt32", [tri(n) for n in inputs]),
    ], [("Output", "ExpectedOutput")], [
        ("Input", "StructuredBuffer", 0),
        ("Output", "RWStructuredBuffer", 0),
    ])


def coalesced_or():
    groups, size, locations = 2, 128, 16
    n = groups * size
    xs = [(t * 7 + t // 5) % 4 for t in range(n)]
    ys = [(t * 3 + t // 7) % 4 for t in range(n)]
    keys = [x | (y << 16) for x, y in zip(xs, ys)]
    bits = [1 << (t % 32) for t in range(n)]
    mem = [0] * locations
    for x, y, b in zip(xs, ys, bits):
        mem[(x + y * 4) % locations] |= b
    return pipeline(groups, [
        ("Keys", "UInt32", keys),
        ("Bits", "UInt32", bits),
        ("Mem", "Hex32", 4 * locations),
        ("ExpectedMem", "Hex32", [f"0x{v:08X}" for v in mem]),
    ], [("Mem", "ExpectedMem")], [
        ("Keys", "StructuredBuffer", 0),
        ("Bits", "StructuredBuffer", 1),
        ("Mem", "RWStructuredBuffer", 0),
    ])


def f32tof16(x):
    """HLSL f32tof16: binary16 bits, rounded to nearest even."""
    return struct.unpack("<H", struct.pack("<e", x))[0]


def tile_minmax(groups_per_wave):
    width, height, tile = 32, 16, 8
    depth = [((x * 37 + y * 101) % 251) / 256 for y in range(height) for x in range(width)]
    tiles_x, tiles_y = width // tile, height // tile
    out = []
    for ty in range(tiles_y):
        for tx in range(tiles_x):
            zs = [depth[(ty * tile + y) * width + tx * tile + x] for y in range(tile) for x in range(tile)]
            out.append(f"0x{(f32tof16(max(zs)) << 16) | f32tof16(min(zs)):08X}")
    return pipeline([tiles_x, tiles_y, 1], [
        ("Depth", "Float32", depth, (width, height)),
        ("TileMinMaxDepthUAV", "Hex32", 4 * tiles_x * tiles_y, (tiles_x, tiles_y)),
        ("Expected", "Hex32", out),
    ], [("TileMinMaxDepthUAV", "Expected")], [
        ("Depth", "Texture2D", 0),
        ("TileMinMaxDepthUAV", "RWTexture2D", 0),
    ], entry="ComputeMinMaxZ")


def coherent_append():
    width, height = 16, 64
    rng = random.Random(9)
    gbuffer = [1 if rng.random() < 0.3 else 0 for _ in range(width * height)]
    # Groups cover 16 x 4 pixels at wave size 16: 16 groups; at larger wave
    # sizes the groups past the image read 0 and append nothing.
    return pipeline([1, height // 4, 1], [
        ("GBuffer", "UInt32", gbuffer, (width, height)),
        ("CountBufferUAV", "UInt32", 4),
        ("DataBufferUAV", "Hex32", 4 * width * height),
        ("ExpectedCount", "UInt32", [sum(gbuffer)]),
    ], [("CountBufferUAV", "ExpectedCount")], [
        ("GBuffer", "Texture2D", 0),
        ("CountBufferUAV", "RWStructuredBuffer", 0),
        ("DataBufferUAV", "RWStructuredBuffer", 1),
    ], entry="Main")


def main():
    files = {
        "compact_write.yaml": compact_write(),
        "ordered_append.yaml": ordered_append("ordered_append", 3, 32, 3, 1),
        "reserve_last_lane.yaml": ordered_append("reserve_last_lane", 2, 128, 3, 2),
        "atomic_per_wave.yaml": atomic_per_wave(),
        "uniform_fast_path.yaml": uniform_fast_path(),
        "coalesced_or.yaml": coalesced_or(),
        "tile_minmax_one_wave.yaml": tile_minmax(1),
        "tile_minmax_two_waves.yaml": tile_minmax(2),
        "coherent_append.yaml": coherent_append(),
    }
    for name, text in files.items():
        with open(name, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
