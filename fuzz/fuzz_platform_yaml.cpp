// Fuzzes the units and the platform reader: YAML text -> config tree (aliases, nesting) -> validated
// platform_params, the first line of the input being a `-p` override applied to the tree.
// Corpus: configs/platforms/*.yaml.
#include "fuzz/fuzz_input.h"

#include "platforms/config/config_error.h"
#include "platforms/config/config_node.h"
#include "platforms/platform_loader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace warmsched;
    const std::string text = fuzz::text_of(data, size);
    const std::size_t nl = text.find('\n');
    try {
        config::config_node root = config::load_yaml_text(text, "fuzz.yaml");
        if (nl != std::string::npos && text.compare(0, 2, "#=") == 0) // "#=key=value" first line: an override
            config::apply_override(root, text.substr(2, nl - 2));
        platform::read_platform(root);
    } catch (const config::config_error&) {
    }
    return 0;
}
