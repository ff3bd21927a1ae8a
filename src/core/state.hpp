// The student's progress through the lessons: a small JSON file under the XDG state directory,
// written atomically (temporary file, fsync, rename) so that a kill never leaves half a file.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>

namespace gpulab {

// $XDG_STATE_HOME/gpulab/progress.json, else $HOME/.local/state/gpulab/progress.json; nothing
// when neither variable is set.
std::optional<std::filesystem::path> progress_path();

// The saved progress ({} when there is none or it cannot be read).
nlohmann::json load_progress();
// Saves atomically; returns false (and leaves the old file) when it cannot.
bool save_progress(const nlohmann::json& progress);

}  // namespace gpulab
