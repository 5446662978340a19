package imagerows

import (
	"errors"
	"fmt"
)

// DefaultFamily is the family that decides image rows when neither a projector file nor a
// family name is given: Qwen3-VL in llama.cpp, matching the default chat template (qwen).
const DefaultFamily = "llamacpp/qwen3vl"

// RecordedVision is the vision name that makes each case's family the hosted one its
// recording's model id implies (FamilyForModel), DefaultFamily where the id implies none.
const RecordedVision = "recorded"

// ErrRecordedWithProjector is Choose's error for RecordedVision with a projector file: the
// file decides one family for every case, RecordedVision one per recorded model.
var ErrRecordedWithProjector = errors.New("--vision " + RecordedVision + " takes each case's family from its recorded model id, --mmproj one family from a projector file: give one of them")

// FamilyChoice is how a run decides image rows: Fallback for every case or, with ByModel,
// the family each case's recorded model id implies, Fallback where it implies none.
type FamilyChoice struct {
	Fallback Family
	ByModel  bool
}

// Choose returns the choice every engine and command makes: the projector file mmproj
// configures when it is given, else the family named name (RecordedVision: by recorded
// model), else DefaultFamily.
func Choose(mmproj, name string) (FamilyChoice, error) {
	f, err := ChooseFamily(mmproj, name)
	return FamilyChoice{Fallback: f, ByModel: name == RecordedVision}, err
}

// ChooseFamily returns the one family of a caller that counts every picture alike: the
// projector file mmproj configures when it is given, else the built-in family named name,
// else DefaultFamily; for RecordedVision (which needs no projector), DefaultFamily.
func ChooseFamily(mmproj, name string) (Family, error) {
	switch {
	case mmproj != "" && name == RecordedVision:
		return Family{}, ErrRecordedWithProjector
	case mmproj != "":
		return LoadProjector(mmproj)
	case name != "" && name != RecordedVision:
		return FamilyByName(name)
	}
	return FamilyByName(DefaultFamily)
}

// For is the family of a case whose recording names model ("": none), and whether the model
// id chose it (false: the fallback).
func (c FamilyChoice) For(model string) (Family, bool) {
	if c.ByModel {
		if f, ok := FamilyForModel(model); ok {
			return f, true
		}
	}
	return c.Fallback, false
}

// Name is the choice as a report records it: the family's name, or "recorded (else
// <fallback>)" when each case's recorded model id chooses.
func (c FamilyChoice) Name() string {
	if c.ByModel {
		return fmt.Sprintf("%s (else %s)", RecordedVision, c.Fallback.Name)
	}
	return c.Fallback.Name
}
