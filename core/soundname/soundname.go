// Package soundname gives each ambient sound set (STB) of a region a plain
// English name from the terrains that name it through the region's chain
// (terrain type → scene type → STB, docs/dat-format.md §3.11): "running water",
// "forest", "grassland". The sound-zone legend and the page's captions both
// call it, so a place is called the same in both.
//
// Names come from the region alone, never from how much land each terrain
// covers: the page has only the landblocks near the listener, the zones
// command has them all, and a name that depended on the land would differ
// between the two. The package depends on core/dat only, so it is cheap in
// the page's wasm.
package soundname

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"acambient/core/dat"
)

// Set is the name of one STB (one entry of the region's SoundDesc).
type Set struct {
	STBIndex int `json:"stbIndex"`
	// Name is lowercase English for what the set sounds like, from the
	// terrains that name it ("running water", "snow and ice"). Two sets
	// named by the same terrains have the same Name; "" for a set no
	// terrain names, which no gather can reach.
	Name string `json:"name"`
	// Label is Name made unique within the region for a legend: the second
	// and later sets of one Name, in STB index order, get " (2)", " (3)", …
	Label string `json:"label"`
	// Terrains are the display names of the terrain types that name the
	// set, strongest first (see Sets).
	Terrains []string `json:"terrains"`
}

// Sets names every STB of r, in index order.
//
// How a name is chosen. Each terrain type t that names the STB through one
// of its scene ordinals weighs the fraction of its ordinals that do (a
// terrain all of whose ordinals lead to the set is wholly of it; one that
// leads there from one ordinal in four, a quarter). Terrains fall into
// kinds (grassland, forest, fresh water, sea, rock, …): the kind of the
// greatest total weight names the set — by its terrain's own phrase when
// all its terrains there share one ("WaterRunning" and "FauxWaterRunning"
// are both "running water"), else by the kind's name ("ForestFloor", "Moss"
// and "DarkMoss" make "forest"). When a second kind weighs at least three
// quarters of the first, neither alone describes the set and both are named
// ("grassland and forest"). Ties go to the kind listed first (kinds below).
// Only the ordinals a terrain word can hold count (type and ordinal < 32,
// docs/dat-format.md §6.2), and 0xFFFFFFFF or an index out of range is no set at
// any hop, as the engine resolves them.
func Sets(r *dat.Region) []Set {
	if r == nil || r.SoundInfo == nil {
		return []Set{}
	}
	n := len(r.SoundInfo.STBDescs)
	// weights[k][t]: terrain t's weight in STB k, in units of 1/lcm(1..32)
	// so that the sums are exact.
	weights := make([][]int64, n)
	for k := range weights {
		weights[k] = make([]int64, maxTerrains)
	}
	for t := range min(len(r.TerrainInfo.TerrainTypes), maxTerrains) {
		ordinals := min(len(r.TerrainInfo.TerrainTypes[t].SceneTypes), maxOrdinals)
		for s := range ordinals {
			if k, ok := r.STBDesc(uint32(t), uint32(s)); ok {
				weights[k][t] += unit / int64(ordinals)
			}
		}
	}
	out := make([]Set, n)
	seen := map[string]int{}
	for k := range out {
		out[k] = name(r, k, weights[k])
		if out[k].Name == "" {
			continue
		}
		seen[out[k].Name]++
		out[k].Label = out[k].Name
		if c := seen[out[k].Name]; c > 1 {
			out[k].Label = fmt.Sprintf("%s (%d)", out[k].Name, c)
		}
	}
	return out
}

// Phrase is the plain phrase of one terrain display name ("WaterRunning" →
// "running water"); a name the table below does not know is split at its
// capitals and digits and lowercased ("CrystalField2" → "crystal field").
func Phrase(terrainName string) string {
	if tn, ok := terrainByName[terrainName]; ok {
		return tn.phrase
	}
	return split(terrainName)
}

// maxTerrains and maxOrdinals are the 5-bit ranges of a terrain word's type
// ((w >> 2) & 0x1F) and scene ordinal (w >> 11), docs/dat-format.md §6.2.
const (
	maxTerrains = 32
	maxOrdinals = 32
)

// unit is lcm(1, …, 32): a terrain of n ordinals gives unit/n per ordinal,
// an integer, so weights add and compare exactly.
const unit int64 = 144403552893600

// name names STB k from its terrain weights.
func name(r *dat.Region, k int, w []int64) Set {
	set := Set{STBIndex: k, Terrains: []string{}}
	var kinds []kindWeight
	var terrains []int
	for t, wt := range w {
		if wt == 0 {
			continue
		}
		terrains = append(terrains, t)
		kind, phrase := classify(displayName(r, t), t)
		i := slices.IndexFunc(kinds, func(kw kindWeight) bool { return kw.key == kind.key })
		if i < 0 {
			kinds = append(kinds, kindWeight{kind: kind})
			i = len(kinds) - 1
		}
		kinds[i].weight += wt
		if !slices.Contains(kinds[i].phrases, phrase) {
			kinds[i].phrases = append(kinds[i].phrases, phrase)
		}
	}
	if len(kinds) == 0 {
		return set
	}
	// Strongest first; equal weights keep terrain index order.
	stableSort(terrains, func(a, b int) bool { return w[a] > w[b] })
	for _, t := range terrains {
		set.Terrains = append(set.Terrains, displayName(r, t))
	}
	stableSort(kinds, func(a, b kindWeight) bool { return a.weight > b.weight || (a.weight == b.weight && a.order < b.order) })
	set.Name = kinds[0].say()
	if len(kinds) > 1 && 4*kinds[1].weight >= 3*kinds[0].weight {
		if second := kinds[1].say(); second != set.Name {
			set.Name += " and " + second
		}
	}
	return set
}

// kind is a group of terrains that sound alike: key identifies it, order
// breaks ties between kinds of equal weight, name says it.
type kind struct {
	key   string
	order int
	name  string
}

// kindWeight is one kind's part in an STB: its total weight and the
// distinct phrases of its terrains there, in terrain order.
type kindWeight struct {
	kind
	weight  int64
	phrases []string
}

// say is the kind's phrase when its terrains share one, else its name.
func (kw kindWeight) say() string {
	if len(kw.phrases) == 1 {
		return kw.phrases[0]
	}
	return kw.name
}

// displayName is terrain t's name as the region stores it (its
// terrain_name), or the enum's name when the region's is empty.
func displayName(r *dat.Region, t int) string {
	if n := r.TerrainInfo.TerrainTypes[t].TerrainName; strings.TrimSpace(n) != "" {
		return n
	}
	return dat.TerrainTypeName(uint32(t))
}

// classify gives terrain t's kind and phrase from its display name. A name
// the table does not know is a kind of its own per phrase, after every
// known kind in ties.
func classify(display string, t int) (kind, string) {
	if tn, ok := terrainByName[display]; ok {
		return kind{key: kindNames[tn.kind], order: tn.kind, name: kindNames[tn.kind]}, tn.phrase
	}
	p := split(display)
	return kind{key: "?" + p, order: len(kindNames) + t, name: p}, p
}

// stableSort sorts s by less, keeping equal elements in order: an
// insertion sort, for the few terrains and kinds of one set (slices'
// stable sort would add its merge code to the page's wasm, per type).
func stableSort[T any](s []T, less func(a, b T) bool) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && less(s[j], s[j-1]); j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// Kinds, in the order that breaks ties: the sounds a listener tells apart.
const (
	kindFreshWater = iota
	kindSea
	kindForest
	kindGrassland
	kindMarsh
	kindSand
	kindSnow
	kindRock
	kindEarth
	kindVolcanic
	kindOlthoi
	kindDesolate
)

// kindNames say the kinds.
var kindNames = [...]string{
	kindFreshWater: "fresh water",
	kindSea:        "sea",
	kindForest:     "forest",
	kindGrassland:  "grassland",
	kindMarsh:      "marsh",
	kindSand:       "sand",
	kindSnow:       "snow and ice",
	kindRock:       "rock",
	kindEarth:      "bare earth",
	kindVolcanic:   "volcanic ground",
	kindOlthoi:     "olthoi lands",
	kindDesolate:   "desolate lands",
}

type terrainName struct {
	phrase string
	kind   int
}

// terrainByName gives the retail terrain types' display names (dat-format
// §9.2, which is also what the EoR region's terrain_name strings hold) their
// phrase and kind.
var terrainByName = map[string]terrainName{
	"BarrenRock":           {"barren rock", kindRock},
	"Grassland":            {"grassland", kindGrassland},
	"Ice":                  {"ice", kindSnow},
	"LushGrass":            {"lush grass", kindGrassland},
	"MarshSparseSwamp":     {"marsh", kindMarsh},
	"MudRichDirt":          {"mud", kindMarsh},
	"ObsidianPlain":        {"obsidian plain", kindRock},
	"PackedDirt":           {"packed dirt", kindEarth},
	"PatchyDirt":           {"patchy dirt", kindEarth},
	"PatchyGrassland":      {"patchy grassland", kindGrassland},
	"SandYellow":           {"yellow sand", kindSand},
	"SandGrey":             {"grey sand", kindSand},
	"SandRockStrewn":       {"rock-strewn sand", kindSand},
	"SedimentaryRock":      {"sedimentary rock", kindRock},
	"SemiBarrenRock":       {"semi-barren rock", kindRock},
	"Snow":                 {"snow", kindSnow},
	"WaterRunning":         {"running water", kindFreshWater},
	"WaterStandingFresh":   {"standing water", kindFreshWater},
	"WaterShallowSea":      {"shallow sea", kindSea},
	"WaterShallowStillSea": {"still shallow sea", kindSea},
	"WaterDeepSea":         {"deep sea", kindSea},
	"ForestFloor":          {"forest floor", kindForest},
	"FauxWaterRunning":     {"running water", kindFreshWater},
	"SeaSlime":             {"sea slime", kindMarsh},
	"Argila":               {"clay", kindEarth},
	"Volcano1":             {"volcanic ground", kindVolcanic},
	"Volcano2":             {"volcanic ground", kindVolcanic},
	"BlueIce":              {"blue ice", kindSnow},
	"Moss":                 {"moss", kindForest},
	"DarkMoss":             {"dark moss", kindForest},
	"Olthoi":               {"olthoi lands", kindOlthoi},
	"DesolateLands":        {"desolate lands", kindDesolate},
}

// split turns "CrystalField2" into "crystal field": a word starts at each
// capital that follows a lowercase letter or starts a run, digits and
// punctuation end words and are dropped, and everything is lowercased.
func split(name string) string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	prev := rune(0)
	for _, c := range name {
		switch {
		case unicode.IsUpper(c):
			if !unicode.IsUpper(prev) {
				flush()
			}
			cur = append(cur, c)
		case unicode.IsLetter(c):
			cur = append(cur, c)
		default:
			flush()
		}
		prev = c
	}
	flush()
	return strings.Join(words, " ")
}
