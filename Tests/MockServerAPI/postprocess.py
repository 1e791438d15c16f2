"""Adjusts the files swift-openapi-generator wrote to Tests/MockServerAPI/Generated (see openapi.yaml)."""
import glob
import re

for path in glob.glob("Tests/MockServerAPI/Generated/*.swift"):
    with open(path) as file:
        text = file.read()
    # The generator's attribute for Swift 6.4 that silences unused `public import`s: imports
    # become plain ones instead, which are public already in Swift 6 mode and never warn.
    text = re.sub(r"#if compiler\(>=6\.4\)\n@diagnose\(UnusedImportAccess, as: ignored\)\n#endif\n", "", text)
    text = re.sub(r"^(@_spi\(Generated\) )?public import ", r"\1import ", text, flags=re.M)
    if not text.startswith("// swift-format-ignore-file"):
        text = "// swift-format-ignore-file\n" + text
    with open(path, "w") as file:
        file.write(text)
