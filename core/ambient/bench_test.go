package ambient

import (
	"testing"

	"acambient/core/dat"
)

// benchWorld is a full 3×3 ring around block (100,100): every cell names one
// of 8 STBs (by a hash of its position), each STB with perSTB sounds, a mix
// of intermittent and constant ones.
func benchWorld(perSTB int) (*dat.Region, *testLand, *testLib) {
	var stbs []dat.AmbientSTBDesc
	var tabs []*dat.SoundTable
	for k := 0; k < 8; k++ {
		s := stb(uint32(0x20000100 + k))
		for i := 0; i < perSTB; i++ {
			d := intermit(0.8, 0.9, 0.5, 2)
			if i%3 == 2 {
				d = constant(0.9, 1)
			}
			s.AmbientSounds = append(s.AmbientSounds, d)
		}
		stbs = append(stbs, s)
		tabs = append(tabs, table(uint32(0x20000100+k), uint32(0x0A000100+3*k), uint32(0x0A000101+3*k), uint32(0x0A000102+3*k)))
	}
	land := newLand()
	land.quiet = true
	for bx := 99; bx <= 101; bx++ {
		for by := 99; by <= 101; by++ {
			b := flatBlock(bx, by, 0)
			for i := range b.Terrain {
				b.Terrain[i] = word((i*7 + bx*3 + by) % 8)
				b.Height[i] = uint8((i * 13) % 50)
			}
			land.blocks[[2]int{bx, by}] = b
		}
	}
	return testRegion(stbs...), land, newLib(tabs...)
}

func BenchmarkChangePosition(b *testing.B) {
	r, land, lib := benchWorld(3)
	e := New(r, land, lib, DefaultConfig())
	p := at(100, 100, 90, 100, 20)
	e.ChangePosition(0, p, false)
	now := 0.0
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		now += 0.5
		e.ChangePosition(now, p, true)
		e.UseTime(now) // keep the queue at its steady size
	}
}

func BenchmarkUseTime(b *testing.B) {
	r, land, lib := benchWorld(8) // 8 STBs × 8 sounds = 64 instances
	e := New(r, land, lib, DefaultConfig())
	e.ChangePosition(0, at(100, 100, 90, 100, 20), false)
	if e.Instances() != 64 {
		b.Fatalf("%d instances, want 64", e.Instances())
	}
	now := 0.0
	for i := 0; i < 3000; i++ { // grow the event buffer to its steady size
		now += 1.0 / 30
		e.UseTime(now)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		now += 1.0 / 30
		e.UseTime(now)
	}
}
