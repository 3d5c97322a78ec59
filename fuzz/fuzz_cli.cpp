// libFuzzer harness: the balsa command's option parsing (apps/). The CLI::App
// is set up by the program's own configure_app (apps/common.hpp: every
// subcommand, --threads, --memory-limit, --setup-trace, plain help,
// --version), less run_app's OpenMP re-execution; the input is the argument list after
// "balsa", its words split at NUL or newline. Options, their validators and
// option functions run; no command does: the main App's pre_callback, which
// CLI11 calls after the whole parse (option functions and requirements
// included) and before any subcommand's callback, ends the parse. (Replacing
// each subcommand's callback by a no-op instead would free the command's
// options, which its callback alone owns, while the parse still writes them.)
//
// Option functions may open files (--setup-trace FILE): each input runs in a
// scratch folder (fuzz_common.hpp), '/' in a word becomes '_' so that no
// path leaves it, and the folder is emptied after each input.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "balsa/setup_trace.hpp"
#include "common.hpp"
#include "fuzz_common.hpp"

namespace {

// Words of the input: split at NUL or newline, '/' replaced by '_', at most
// 64 of them (CLI11's work grows with the number of words, not the bugs).
std::vector<std::string> words_of(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> words(1);
  for (std::size_t i = 0; i < size && words.size() <= 64; ++i) {
    const char c = static_cast<char>(data[i]);
    if (c == '\0' || c == '\n')
      words.emplace_back();
    else
      words.back() += c == '/' ? '_' : c;
  }
  if (words.size() > 64) words.pop_back();
  return words;
}

// Thrown by FuzzApp::pre_callback: the parse is over, the commands would run next.
struct ParseDone {};

// The top-level App, stopping before any command's callback.
class FuzzApp : public CLI::App {
 public:
  using CLI::App::App;
  void pre_callback() override { throw ParseDone{}; }
};

// Ends what an input's option functions started: the set-up trace's file
// closed, the scratch folder emptied.
void clean_up() {
  balsa::set_setup_trace("");
  for (const auto& entry : std::filesystem::directory_iterator(balsa::fuzz::scratch_folder()))
    std::filesystem::remove_all(entry.path());
}

// The folder the fuzzer started in (its corpus and artifact paths may be
// relative to it): each input runs in the scratch folder, then comes back.
const std::filesystem::path& start_folder() {
  static const std::filesystem::path folder = std::filesystem::current_path();
  return folder;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  (void)start_folder();
  (void)balsa::fuzz::scratch_folder();
  balsa::fuzz::limit_memory();
  return 0;
}

// One input: the words after "balsa"; the end of the parse, a usage error
// (CLI::Error) or a balsa::Error from an option function is the expected answer.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> words = words_of(data, size);
  std::vector<char*> argv{const_cast<char*>("balsa")};
  for (std::string& w : words) argv.push_back(w.data());
  std::filesystem::current_path(balsa::fuzz::scratch_folder());
  FuzzApp app{"balsa (fuzz)", "balsa"};
  balsa::app::configure_app(app, balsa::app::add_balsa_commands);  // as run_app does
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const ParseDone&) {
  } catch (const CLI::Error&) {
  } catch (const balsa::Error&) {
  }
  clean_up();
  std::filesystem::current_path(start_folder());
  return 0;
}
