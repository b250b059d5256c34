"""The fixed words of the handout's generated tables, in each language of the handout.

`python -m assignment.build` fills these templates with the rubric's names and the grader's
numbers; each language has the same templates with the same fields
(tests/kit/assignment/test_handout_rubric.py), so a table cannot say more in one language than in
the other. Chinese follows the handout's glossary (assignment/zh/glossary.md).
"""

from __future__ import annotations

# The rubric's and the kit rules' prose fields in each language: English is the plain key.
RUBRIC_NAME = {"en": "name", "zh": "name_zh"}
RULE_TEXT = {"en": "rule", "zh": "rule_zh"}

WORDS = {
    "en": {
        "part_1": "Part 1: character-level BPE",
        "part_2": "Part 2: byte-level training",
        "part_3": "Part 3: the tokenizer",
        "part_efficiency": "Part 4: efficiency",
        "after_due_date": "result shown after the due date",
        "after_published": "result shown when grades are published",
        "shown_later": "{name} ({note})",
        "points_header": "| Test | What it checks | Points |",
        "hidden_tests": "hidden tests: {points} points",
        "total": "Total",
        "cap": "One fault costs at most {cap} points in all, however many tests it fails, when the grader "
        'proves it alone explains each failure (see "One fault, several tests").',
        "rules_header": "| Rule | Stated in | Checked by |",
        "one_part": "Part {a}",
        "two_parts": "Parts {a} and {b}",
        "checked_by": "{number} {name}",
        "checked_by_joiner": "; ",
        "no_graded_test": "no graded test",
        "corpus_mixed": "English and Chinese stories",
        "corpus_en": "English stories",
        "corpus_zh": "Chinese stories",
        "budgets_header": "| What is measured | On what | Your limit |",
        "train_workload": "about {kb} kB of generated {kind}, `vocab_size={vocab_size}`, special token `{eot}`",
        "encode_workload": "about {kb} kB of generated {kind}, one call, with a {vocab}-token vocabulary",
        "stream_what": "`encode_iterable` (memory)",
        "stream_workload": "about {mb} MB of generated {kind}, read in chunks",
        "speed_limit": "{factor} x the reference solution's CPU time",
        "memory_limit": "memory growth at most {per_byte} bytes per byte of the file ({total_mb} MB)",
        "budgets_abort": "A run that has used {abort} x its limit of CPU time is stopped there (it could not "
        "pass anyway), so a very slow implementation fails quickly instead of hanging, and in the same "
        "words on every machine. The memory test grades memory, never speed: it first streams the file's "
        "first {sample} characters, and the whole file may then take {pace} x the CPU time that pace "
        "predicts, so a slow but right encoder is measured, not stopped (an encoder whose work grows "
        "with the text it has read so far is stopped).",
        "budgets_borderline": "A time near its limit is measured again, up to {runs} runs, and the best "
        "run counts: at most the limit passes; less than {over}% over it is *borderline* and passes too "
        "(the report says so, with its figures), since the noise of a rerun could fall on either side; "
        "{border} x the limit or more fails. So a grade never hangs on one unlucky run.",
        "budgets_not_sandbox": "These budgets are what the speed tests grade. They are not the sandbox's "
        "limits of {test} x per test and {call} x per call ([Grading](README.md#grading)): every test "
        "runs under those too, and they only stop code that would never finish.",
        "time_limits": "Your code runs in a sandbox, with limits on time and memory. Time is CPU time, so a "
        "busy machine does not fail you. Each test may use {factor} x the CPU time the reference solution "
        "needs for it, and each call {call} x the reference's slowest call in that test, both plus "
        "{per_call} s for every call and {per_child} s for every process it runs (the children of a "
        "`multiprocessing` pool); on a slower machine, these seconds grow with it. Importing your package "
        "is no test's time: each test's fresh process imports it before the test starts, under a limit "
        "of its own, {import_cpu} s of CPU time (a package that imports a heavy library such as `torch` is "
        "fine); an import over it, or one that waits or crashes, leaves every test not graded, and one "
        "over {import_noted} s is named once at the top of the grade. Such a slow import is also added "
        "once to a call that runs other processes, not once per process: a pool whose children each "
        "import your package again (the `spawn` start method) should keep heavy imports out of the "
        "modules its children load. A call that uses no CPU time for {idle} s (a sleep, or a pool whose "
        "child died) is stopped then. A test that runs out of time fails with a message naming the call, "
        "its input and the limit; it does not take the other tests down with it. Your code may also run at "
        "most {nproc} processes and threads at once (a pool of 64 processes, each with 64 threads, fits; "
        "threads count too), use at most {memory_gib} GiB of memory and {open_files} open files in each "
        "process: code that reaches one of these limits fails with a message naming the limit and the "
        "call, once, as one fault however many tests it fails. These limits only stop "
        "code that would never finish: the speed tests of Part 4 grade speed against budgets of their "
        "own, {train} x and {encode} x the reference ([Part 4](part4_efficiency.md)).",
    },
    "zh": {
        "part_1": "第 1 部分：字符级 BPE",
        "part_2": "第 2 部分：字节级训练",
        "part_3": "第 3 部分：分词器",
        "part_efficiency": "第 4 部分：效率",
        "after_due_date": "截止日期后才显示结果",
        "after_published": "公布成绩时才显示结果",
        "shown_later": "{name}（{note}）",
        "points_header": "| 测试 | 检查什么 | 分数 |",
        "hidden_tests": "隐藏测试：共 {points} 分",
        "total": "总分",
        "cap": "一个错误无论让多少个测试失败，只要评分器证明每个失败都只由它造成，总共最多扣 {cap} 分"
        "（见“一个错误，多个测试”）。",
        "rules_header": "| 规则 | 在哪里说明 | 由哪些测试检查 |",
        "one_part": "第 {a} 部分",
        "two_parts": "第 {a}、{b} 部分",
        "checked_by": "{number} {name}",
        "checked_by_joiner": "；",
        "no_graded_test": "没有计分的测试",
        "corpus_mixed": "中英文故事",
        "corpus_en": "英文故事",
        "corpus_zh": "中文故事",
        "budgets_header": "| 测什么 | 用什么数据 | 你的限制 |",
        "train_workload": "约 {kb} kB 生成的{kind}，`vocab_size={vocab_size}`，特殊词元 `{eot}`",
        "encode_workload": "约 {kb} kB 生成的{kind}，调用一次，词表有 {vocab} 个词元",
        "stream_what": "`encode_iterable`（内存）",
        "stream_workload": "约 {mb} MB 生成的{kind}，分块读入",
        "speed_limit": "参考答案 CPU 时间的 {factor} 倍",
        "memory_limit": "内存增长不超过文件每字节 {per_byte} 字节（{total_mb} MB）",
        "budgets_abort": "一次运行用掉的 CPU 时间一旦达到限制的 {abort} 倍，就在那里被终止（反正已经不可能"
        "通过），所以很慢的实现会很快失败，而不是一直卡住，而且在每台机器上给出的说法都一样。内存测试只评"
        "内存，从不评速度：它先流式编码文件的前 {sample} 个字符，然后整个文件可以用掉按这个速度预计的 CPU "
        "时间的 {pace} 倍，所以一个慢但正确的编码器会被测完，而不会被终止（只有工作量随已读文本增长的编码器"
        "才会被终止）。",
        "budgets_borderline": "接近限制的时间会被重新测量，最多 {runs} 次，以最好的一次为准：不超过限制就通过；"
        "超出不到 {over}% 算作*临界*，同样通过（报告会注明，并给出数字），因为重测的噪声可能落在任何一边；"
        "达到限制的 {border} 倍或更多则不通过。所以成绩不会取决于某一次不走运的运行。",
        "budgets_not_sandbox": "速度测试按的是这些预算。它们不是沙箱的限制（每个测试 {test} 倍、每次调用 "
        "{call} 倍，见[评分](README.md#评分)）：每个测试也都在沙箱的限制下运行，但那些限制只拦住永远不会"
        "结束的代码。",
        "time_limits": "你的代码在沙箱中运行，时间和内存都有限制。时间指 CPU 时间，所以机器忙不会让你失分。"
        "每个测试最多可以用参考答案在这个测试上所需 CPU 时间的 {factor} 倍，每次调用最多可以用参考答案在这个"
        "测试里最慢一次调用的 {call} 倍；两者都另加每次调用 {per_call} 秒、它运行的每个进程 {per_child} 秒"
        "（`multiprocessing` 进程池的子进程）；在较慢的机器上，这些秒数会相应变长。导入你的包不算在任何测试"
        "的时间里：每个测试的新进程在测试开始前导入它，导入有自己的限制：{import_cpu} 秒 CPU 时间（包里导入 "
        "`torch` 这样的大型库没有问题）；导入超过这个限制、卡住等待或者崩溃，所有测试都不评分；导入超过 "
        "{import_noted} 秒的，会在成绩的开头提示一次。对于一次会运行其他进程的调用，这样的慢导入也只加一次，"
        "而不是每个进程加一次：如果进程池的每个子进程都要重新导入你的包（`spawn` 启动方式），就别让子进程"
        "加载的模块导入大型库。一次调用如果连续 {idle} 秒不用 CPU 时间（在 sleep，或者进程池的某个子进程"
        "已经死掉），就会被终止。超时的测试会失败，失败信息写明是哪次调用、它的输入和时间限制；它不会连累"
        "其他测试。你的代码同时最多可以运行 {nproc} 个进程和线程（线程也计入；64 个进程、每个进程 64 个线程的"
        "进程池没有问题），每个进程最多使用 {memory_gib} GiB 内存、打开 {open_files} 个文件：达到其中某个限制的"
        "代码会失败，失败信息写明是哪个限制、哪次调用；无论它让多少个测试失败，都只算一个错误。"
        "这些限制只拦住永远不会结束的代码：第 4 部分的速度测试另有自己的预算，分别是参考答案的 "
        "{train} 倍和 {encode} 倍（[第 4 部分](part4_efficiency.md)）。",
    },
}
