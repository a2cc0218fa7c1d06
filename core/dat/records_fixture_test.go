package dat

// Hand-built fixtures for SoundTable, Wave, LandBlock and EnvCell shaped
// after the EoR test vectors of docs/dat-format.md §4–§7.

const (
	shieldUp    = 0x58 // Sound enum, docs/dat-format.md §9.1
	enchantDown = 0x5B
	swoosh2     = 0x1F
)

// soundTable1Bytes is shaped like EoR 0x20000001 (docs/dat-format.md §4): root hash 0, one
// placeholder record {0, 0, 1, 1}, 52 children in a scrambled (hash-bucket
// like) key order 0x50 + 7i mod 52, each with one record and no children.
func soundTable1Bytes() []byte {
	var w builder
	w.u32(0x20000001)
	w.u32(0, 1)    // root hash_key, record count
	w.u32(0)       // wave: none
	w.f32(0, 1, 1) // priority, probability, volume
	w.u32(52)      // children; at offset 0x1C
	for i := 0; i < 52; i++ {
		key := uint32(0x50 + i*7%52)
		w.u32(key, 1)
		switch key {
		case shieldUp:
			w.u32(0x0A000262)
			w.f32(0.7, 1.0, 1.0)
		case enchantDown:
			w.u32(0x0A000274)
			w.f32(0.7, 1.0, 0.8)
		default:
			w.u32(0x0A000300 + uint32(i))
			w.f32(0.5, 1, 1)
		}
		w.u32(0)
	}
	return w.b
}

// soundTableA8Bytes is shaped like EoR 0x200000A8: 32 children, Swoosh2 (0x1F)
// with two records, first 0x0A000519 and last 0x0A00051E.
func soundTableA8Bytes() []byte {
	var w builder
	w.u32(0x200000A8)
	w.u32(0, 1, 0)
	w.f32(0, 1, 1)
	w.u32(32)
	for i := 0; i < 32; i++ {
		key := uint32(0x10 + i*5%32)
		if key == swoosh2 {
			w.u32(key, 2)
			w.u32(0x0A000519)
			w.f32(0.5, 1, 0.6)
			w.u32(0x0A00051E)
			w.f32(0.5, 0.5, 0.6)
		} else {
			w.u32(key, 1, 0x0A000400+uint32(i))
			w.f32(0.25, 1, 1)
		}
		w.u32(0)
	}
	return w.b
}

// nestedSoundTableBytes is a chain of nodes, each with no records and one
// child, whose deepest node is at the given depth (root = 0).
func nestedSoundTableBytes(depth int) []byte {
	var w builder
	w.u32(0x20000002)
	for i := 0; i < depth; i++ {
		w.u32(uint32(i), 0, 1)
	}
	w.u32(uint32(depth), 0, 0)
	return w.b
}

// pcmWaveBytes is shaped like EoR 0x0A000002 (docs/dat-format.md §5): H = 18, D = 7046,
// PCM mono 22050 Hz 16-bit.
func pcmWaveBytes() []byte {
	var w builder
	w.u32(0x0A000002, 18, 7046)
	w.u16(FormatPCM, 1)
	w.u32(22050, 44100)
	w.u16(2, 16, 0)
	for i := 0; i < 7046; i++ {
		w.u8(uint8(i % 251))
	}
	return w.b
}

// mp3WaveBytes has the 30-byte MPEGLAYER3WAVEFORMAT header docs/dat-format.md §5 expects
// (cbSize 12: wID, fdwFlags, nBlockSize, nFramesPerBlock, nCodecDelay).
func mp3WaveBytes() []byte {
	var w builder
	w.u32(0x0A000393, 30, 8000)
	w.u16(FormatMP3, 1)
	w.u32(22050, 16000)
	w.u16(1, 0, 12)
	w.u16(1)
	w.u32(2)
	w.u16(104, 1, 1393)
	for i := 0; i < 8000; i++ {
		w.u8(uint8(i))
	}
	return w.b
}

// landBlockBytes is shaped like EoR 0x9AB1FFFF (docs/dat-format.md §6): has_objects 0,
// terrain[0] = 0x4834, [1] = 0x6824, [80] = 0x5834, heights 120, 139, 93,
// 93, 110 at 0, 1, 40, 79, 80; other entries are filler.
func landBlockBytes() []byte {
	var w builder
	w.u32(0x9AB1FFFF, 0)
	for i := 0; i < 81; i++ {
		v := uint16(i%32) << 2 // filler: type i mod 32, no road, scene 0
		switch i {
		case 0:
			v = 0x4834
		case 1:
			v = 0x6824
		case 80:
			v = 0x5834
		}
		w.u16(v)
	}
	for i := 0; i < 81; i++ {
		h := uint8(100 + i%7)
		switch i {
		case 0:
			h = 120
		case 1:
			h = 139
		case 40, 79:
			h = 93
		case 80:
			h = 110
		}
		w.u8(h)
	}
	w.u8(0)
	return w.b
}

// envCellBytes is shaped like EoR 0x7D64010D (docs/dat-format.md §7): flags 0x3, then the
// repeated cell id, counts, and an opaque tail.
func envCellBytes() []byte {
	var w builder
	w.u32(0x7D64010D, 0x3, 0x7D64010D)
	w.u8(3, 2)
	w.u16(5)
	w.u32(0x08000001, 0x08000002, 0x08000003) // the start of the surfaces, opaque here
	return w.b
}
