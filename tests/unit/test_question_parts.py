from paperdesk.core.agents import answer_prompt
from paperdesk.core.agents.question_parts import asks_two_things


def test_a_coordinated_second_question_is_two_things() -> None:
    assert asks_two_things("Which team won the contest, and what method did it use?")
    assert asks_two_things("What restriction applies to the resampling, and why?")
    assert asks_two_things("Which covariate defines the split and how are the two groups characterised?")


def test_one_question_is_one_thing() -> None:
    assert not asks_two_things("How many plots and seasons did the trial cover?")
    assert not asks_two_things("What share of the chicks survived to fledging?")
    assert not asks_two_things("Which brand and model of sensor was used?")


def test_only_a_two_part_question_is_asked_for_every_part() -> None:
    def system(question: str) -> str:
        _, messages, _ = answer_prompt.build(True, [], [], question)
        assert messages is not None
        return messages[0]["content"]

    assert "every part of the question" in system("Which team won, and what method did it use?")
    plain = system("Which team won?")
    assert "every part" not in plain and "{parts}" not in plain
    assert "in one or two short sentences: no preamble" in plain
