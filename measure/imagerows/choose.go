package imagerows

// DefaultFamily is the family that decides image rows when neither a projector file nor a
// family name is given: Qwen3-VL in llama.cpp, matching the default chat template (qwen).
const DefaultFamily = "llamacpp/qwen3vl"

// ChooseFamily returns the family that decides image rows, the one choice every engine and
// command makes: the projector file mmproj configures when it is given, else the built-in
// family named name, else DefaultFamily.
func ChooseFamily(mmproj, name string) (Family, error) {
	switch {
	case mmproj != "":
		return LoadProjector(mmproj)
	case name != "":
		return FamilyByName(name)
	}
	return FamilyByName(DefaultFamily)
}
