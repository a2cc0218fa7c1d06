package acdatspec

// FileType names a record's type as acdatservice's listing and its
// format=json refusal do: db.rs's resolved_file_type, which is
// DatFileType::from_object_id(id) when that knows the id, else the type its
// index stored, which create_index.rs took from the same from_object_id. So
// the name depends on the id alone, in whichever dat the record lies: the
// ranges are the portal dat's, and a cell record's id (0xXXYYFFFF for a
// landblock, 0xXXYY0100… for a cell) falls in none of them unless its
// landblock's x byte happens to be a portal type's (0x0A00FFFF is "Wave").
// Most cell records are therefore "Unknown", as the service lists them.
//
// The ranges are from_object_id's match arms in their order (asheron-rs,
// crates/acprotocol/src/dat/enums/dat_file_type.rs); the first that holds
// the id names it.
func FileType(id uint32) string {
	for _, r := range fileTypes {
		if id >= r.lo && id <= r.hi {
			return r.name
		}
	}
	return "Unknown"
}

var fileTypes = [...]struct {
	lo, hi uint32
	name   string
}{
	{0x01000000, 0x0100FFFF, "GraphicsObject"},
	{0x02000000, 0x0200FFFF, "Setup"},
	{0x03000000, 0x0300FFFF, "Animation"},
	{0x04000000, 0x0400FFFF, "Palette"},
	{0x05000000, 0x05FFFFFF, "SurfaceTexture"},
	{0x06000000, 0x07FFFFFF, "Texture"},
	{0x08000000, 0x0800FFFF, "Surface"},
	{0x09000000, 0x0900FFFF, "MotionTable"},
	{0x0A000000, 0x0A00FFFF, "Wave"},
	{0x0D000000, 0x0D00FFFF, "Environment"},
	{0x0E000002, 0x0E000002, "CharacterGenerator"},
	{0x0E000003, 0x0E000003, "SecondaryAttributeTable"},
	{0x0E000004, 0x0E000004, "SkillTable"},
	{0x0E000007, 0x0E000007, "ChatPoseTable"},
	{0x0E00000D, 0x0E00000D, "ObjectHierarchy"},
	{0x0E00000E, 0x0E00000E, "SpellTable"},
	{0x0E00000F, 0x0E00000F, "SpellComponentTable"},
	{0x0E000011, 0x0E000011, "TreasureTable"},
	{0x0E000018, 0x0E000018, "XpTable"},
	{0x0E000019, 0x0E000019, "CraftTable"},
	{0x0E00001A, 0x0E00001A, "BadData"},
	{0x0E00001B, 0x0E00001B, "Quests"},
	{0x0E00001C, 0x0E00001C, "GameEventTable"},
	{0x0E00001D, 0x0E00001D, "ContractTable"},
	{0x0E00001E, 0x0E00001E, "TabooTable"},
	{0x0E00001F, 0x0E00001F, "FileToId"},
	{0x0E000020, 0x0E000020, "NameFilterTable"},
	{0x0E010000, 0x0E01FFFF, "QualityFilter"},
	{0x0E020000, 0x0E02FFFF, "MonitoredProperties"},
	{0x0E000000, 0x0EFFFFFF, "CharGen"},
	{0x0F000000, 0x0F00FFFF, "PaletteSet"},
	{0x10000000, 0x1000FFFF, "Clothing"},
	{0x11000000, 0x1100FFFF, "DegradeInfo"},
	{0x12000000, 0x1200FFFF, "Scene"},
	{0x13000000, 0x1300FFFF, "Region"},
	{0x14000000, 0x1400FFFF, "KeyMap"},
	{0x15000000, 0x15FFFFFF, "RenderTexture"},
	{0x16000000, 0x16FFFFFF, "RenderMaterial"},
	{0x17000000, 0x17FFFFFF, "MaterialModifier"},
	{0x18000000, 0x18FFFFFF, "MaterialInstance"},
	{0x19000000, 0x19FFFFFF, "RenderMesh"},
	{0x20000000, 0x2000FFFF, "SoundTable"},
	{0x21000000, 0x21FFFFFF, "UiLayout"},
	{0x22000000, 0x22FFFFFF, "EnumMapper"},
	{0x23000000, 0x24FFFFFF, "StringTable"},
	{0x25000000, 0x25FFFFFF, "DidMapper"},
	{0x26000000, 0x2600FFFF, "ActionMap"},
	{0x27000000, 0x27FFFFFF, "DualDidMapper"},
	{0x30000000, 0x3000FFFF, "CombatTable"},
	{0x31000000, 0x3100FFFF, "String"},
	{0x32000000, 0x3200FFFF, "ParticleEmitter"},
	{0x33000000, 0x3300FFFF, "PhysicsScript"},
	{0x34000000, 0x3400FFFF, "PhysicsScriptTable"},
	{0x38000000, 0x3800FFFF, "ItemMutation"},
	{0x39000000, 0x39FFFFFF, "MasterProperty"},
	{0x40000000, 0x40000FFF, "Font"},
	{0x40001000, 0x400FFFFF, "FontLocal"},
	{0x41000000, 0x41FFFFFF, "StringState"},
	{0x78000000, 0x7FFFFFFF, "DbProperties"},
	{0x0000FFFE, 0x0000FFFE, "LandBlockInfo"},
	{0x0000FFFF, 0x0000FFFF, "LandBlock"},
	{0x00000001, 0x0000FFFD, "WeenieDefaults"},
}
