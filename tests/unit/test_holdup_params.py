"""Hand-edited YAML (issue 20, item 7; issue 21, item 6): YAML 1.2 core numbers and booleans, a
leading zero refused with the number meant, profile sections checked against the chapters, keys
written twice refused with their lines, only JSON values, short echoes, and ``--list-params``
saying what a profile runs and where each value comes from."""

from __future__ import annotations

import textwrap

import pytest

from repcap import RepcapError, cli
from repcap.book.params import explain_parameters, load_profile, parse_override, resolve_parameters
from repcap.book.paramyaml import read_yaml as _yaml

CHAPTER = textwrap.dedent(
    """\
    # %% tags=["parameters"]
    n_vectors = 100
    flag = False
    extra = None
    ratio = 0.5
    """
)


@pytest.fixture
def project(tmp_path, monkeypatch):
    (tmp_path / "_config.yml").write_text("title: t\n")
    nb = tmp_path / "notebooks"
    (nb / "params").mkdir(parents=True)
    (nb / "01_random_vectors.py").write_text(CHAPTER)
    (nb / "06_packing.py").write_text(CHAPTER)
    monkeypatch.setenv("REPCAP_ROOT", str(tmp_path))
    return nb


def _profile(nb, text: str, name: str = "quick") -> None:
    (nb / "params" / f"{name}.yaml").write_text(textwrap.dedent(text))


@pytest.mark.parametrize(
    "text, value",
    [
        ("300", 300),
        ("0x10", 16),
        ("0o17", 15),
        ("1e-3", 0.001),
        ("-2.5", -2.5),
        ("true", True),
        ("null", None),
        ("yes", "yes"),
        ("off", "off"),
        ("5:00", "5:00"),
        ("2024-01-01", "2024-01-01"),
        ("0", 0),
    ],
)
def test_yaml_12_core_numbers_and_booleans(text, value):
    got = _yaml(text)
    assert got == value and type(got) is type(value)


def test_a_leading_zero_is_refused_with_the_number_meant():
    with pytest.raises(RepcapError, match=r"cannot read value '0300' .*did you mean 300\?"):
        parse_override("n_vectors=0300")
    with pytest.raises(RepcapError, match=r"did you mean -7\?"):
        parse_override("n_vectors=-07")


def test_yes_no_and_sexagesimal_are_refused_for_typed_parameters(project):
    path = project / "01_random_vectors.py"
    _profile(project, "01_random_vectors: {}\n")
    with pytest.raises(RepcapError, match=r"'flag' must be bool .* got str 'yes' \(YAML 1.2 reads yes/no/on/off"):
        resolve_parameters(path, "quick", {"flag": parse_override("flag=yes")[1]})
    with pytest.raises(RepcapError, match=r"'n_vectors' must be int .*got str '5:00' \(YAML 1.2 reads 5:00 as text"):
        resolve_parameters(path, "quick", {"n_vectors": parse_override("n_vectors=5:00")[1]})


@pytest.mark.parametrize(
    "raw, kind", [("!!binary aGVsbG8=", "bytes"), ("!!timestamp 2024-01-01", "date"), ("!!set {a, b}", "set")]
)
def test_only_json_values_even_where_the_default_is_none(project, raw, kind):
    with pytest.raises(RepcapError, match=rf"parameter 'extra' holds a {kind} "):
        parse_override(f"extra={raw}")
    _profile(project, f"01_random_vectors:\n  extra: {raw}\n")
    with pytest.raises(RepcapError, match=rf"quick.yaml \[01_random_vectors\]: parameter 'extra' holds a {kind}"):
        load_profile("quick", "01_random_vectors")
    with pytest.raises(RepcapError, match="not a finite number"):
        parse_override("extra=.nan")


def test_a_misspelt_chapter_section_is_refused_naming_the_nearest(project):
    _profile(project, "01_random_vectors: {n_vectors: 5}\n06_pakcing:\n  k: 3\n")
    with pytest.raises(
        RepcapError, match=r"quick.yaml: section '06_pakcing' names no chapter; did you mean 06_packing\?"
    ):
        load_profile("quick", "01_random_vectors")


def test_a_section_or_parameter_written_twice_is_refused_with_its_lines(project):
    _profile(project, "01_random_vectors:\n  n_vectors: 5\n06_packing: {}\n01_random_vectors:\n  n_vectors: 7\n")
    with pytest.raises(
        RepcapError, match=r"quick.yaml:4: not valid YAML \('01_random_vectors' is written twice .*lines 1 and 4"
    ):
        load_profile("quick", "01_random_vectors")
    _profile(project, "01_random_vectors:\n  n_vectors: 5\n  n_vectors: 6\n")
    with pytest.raises(RepcapError, match=r"quick.yaml:3: .*'n_vectors' is written twice .*lines 2 and 3"):
        load_profile("quick", "01_random_vectors")


def test_messages_echo_at_most_about_200_characters(project):
    _profile(project, "01_random_vectors: {}\n")
    for bad in (f"{'x' * 5000}=1", f"n_vectors={'[' * 5000}", f"n_vectors='{'y' * 5000}'"):
        with pytest.raises(RepcapError) as exc:
            name, value = parse_override(bad)
            resolve_parameters(project / "01_random_vectors.py", "quick", {name: value})
        assert len(str(exc.value)) < 600, str(exc.value)[:300]


def test_reference_is_not_a_profile_and_says_what_it_is(project):
    with pytest.raises(
        RepcapError, match="'reference' is not a profile but a point set.*repcap bundle compute reference"
    ):
        load_profile("reference", "01_random_vectors")


def test_list_params_prints_what_the_profile_runs(project, capsys):
    _profile(
        project,
        """\
        01_random_vectors:
          # extra, ratio: the chapter's own rule (the sources' 0.5)
          n_vectors: 2000  # the paper's 8000 is a GPU's work
        """,
    )
    rows = {r[0]: r[1:] for r in explain_parameters(project / "01_random_vectors.py", "quick", {"flag": True})}
    assert rows["n_vectors"] == (2000, "notebooks/params/quick.yaml:3", "the paper's 8000 is a GPU's work")
    assert rows["flag"] == (True, "command line", "")
    assert rows["extra"][0] is None and "default, null" in rows["extra"][1]
    assert rows["extra"][2] == "notebooks/params/quick.yaml:2: the chapter's own rule (the sources' 0.5)"
    assert rows["ratio"][:2] == (0.5, "notebooks/01_random_vectors.py (default)")
    assert cli.main(["run", "01_random_vectors", "--list-params", "--profile", "quick"]) == 0
    out = capsys.readouterr().out
    assert "n_vectors = 2000    # notebooks/params/quick.yaml:3: the paper's 8000 is a GPU's work" in out
    assert "n_vectors = 100" not in out  # not the notebook's default
