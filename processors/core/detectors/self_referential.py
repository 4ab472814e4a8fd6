"""Self-reference: an agent talking about its own prompt, rules or nature instead of the task."""

from ..patterns import DetectorSpec

DETECTORS = (
    DetectorSpec(
        id="self_referential.instructions",
        category="self_referential",
        family="selfReferential",
        patterns=(
            r"\bmy\s+(?:(?:safety|own|operating|core)\s+)?(?:system\s+prompt|instructions|guidelines|rules|constraints"
            # "my instructions for this queue say ...": the brief of one queue, task or site.
            r"|programming|directives|policies)\s+(?:for\s+(?:this|the)\s+[\p{L}-]+\s+)?"
            r"(?:(?:also|only|explicitly|clearly|specifically)\s+)?"
            r"(?:say|says|tell|tells|instruct|instructs|direct|directs|require|requires|state|states|prevent"
            r"|prevents|forbid|forbids|prohibit|prohibits|do\s+not\s+allow|don't\s+allow|don’t\s+allow"
            # "my instructions are not to enter ...", "my instructions don't include any VPN credentials"
            r"|are\s+(?:not\s+)?to|is\s+(?:not\s+)?to|(?:do\s+not|don't|don’t)\s+(?:include|let|permit|mention|cover)"
            r"|include|limit|limits|keep|keeps"
            # "my guidelines only let me share ...", "my tools allow read access only"
            r"|let\s+me|lets\s+me|allow|allows|permit|permits)\b",
            # "the policy I follow requires ...", "the rules I work under say ...": the agent's own rules, named from
            # the outside. "that's outside what my tools allow", "beyond what my permissions let me do".
            r"\bthe\s+(?:policy|policies|rules|guidelines|instructions)\s+I\s+(?:follow|work\s+under|operate\s+under"
            r"|was\s+given|have\s+been\s+given|am\s+bound\s+by)\b",
            r"\b(?:outside|beyond)\s+(?:of\s+)?what\s+my\s+(?:tools|permissions|access|role|instructions|guidelines)"
            r"\s+(?:allow|allows|permit|permits|let\s+me|cover|covers)\b",
            r"\b(?:according\s+to|based\s+on|as\s+per|per|following)\s+my\s+(?:instructions|system\s+prompt|prompt"
            r"|guidelines|training|programming|rules)\b",
            r"\bmy\s+system\s+prompt\b",
            # "As an airline booking assistant, my role is strictly limited to searching flights": the agent's remit.
            r"\bmy\s+(?:role|job|purpose|scope|remit)\s+(?:here\s+)?(?:is|'s|’s)\s+(?:strictly\s+|only\s+|solely\s+)?"
            r"(?:limited|restricted|confined)\s+to\b",
        ),
        assertion="self_referential",
        subject_group=None,
        fixed_subject="self",
        confidence=0.9,
        priority=3,  # over capability: "my guidelines don't allow me to ..." is about the agent's rules
        examples=("My system prompt says I should only summarise.", "According to my instructions, I cannot do that.",
                  "The policy I follow requires a specialist to review it.", "That's outside what my tools allow.",
                  "My role is limited to searching and reserving flights."),
    ),
    DetectorSpec(
        id="self_referential.identity",
        category="self_referential",
        family="selfReferential",
        patterns=(
            r"\b(?:I\s+am|I'm|I’m)\s+(?:just\s+|only\s+|merely\s+|simply\s+)?"
            # "a browser automation agent", "the shopping assistant": up to three words before the noun, after an
            # article only ("I'm on the Zendesk agent workspace" says where the agent is, not what it is).
            r"(?:(?:an?|the|your)\s+(?:[\p{L}-]+\s+){0,3}?)?(?:AI|artificial\s+intelligence"
            r"|AI\s+assistant|assistant|language\s+model|large\s+language\s+model|LLM|sub-?agent|agent|chatbot|bot)\b",
            r"\bas\s+an?\s+(?:AI|AI\s+assistant|language\s+model|large\s+language\s+model|LLM|sub-?agent)\b",
            # "As a screenshot-based browser agent I have no access to ...": what kind of agent it is, then a limit.
            r"\bas\s+an?\s+(?:[\p{L}-]+\s+){1,3}?(?:agent|assistant|bot|model)[ \t]*,?[ \t]+(?:I|I'm|I’m)\b",
            # "I'm Claude, an AI model", "I'm MultiOn": the agent naming the model or product it is.
            r"\b(?:I\s+am|I'm|I’m)\s+(?:Claude|ChatGPT|GPT-4o?|Gemini|Copilot|Llama|Qwen|Mistral|(?-i:MultiOn|Operator"
            r"|Devin|Manus))\b",
        ),
        assertion="self_referential",
        subject_group=None,
        fixed_subject="self",
        confidence=0.85,
        examples=("I'm an AI assistant, so I cannot browse.", "As an AI language model I have no opinions.",
                  "As a screenshot-based browser agent I have no access to the audio.", "I'm MultiOn.",
                  "I am a browser automation agent.", "I'm the shopping assistant for this session.",
                  "I'm Claude, an AI model made by Anthropic."),
    ),
    DetectorSpec(
        # What the agent perceives or reaches, as its harness gives it: "I only receive screenshots, not audio",
        # "I can only see what is in the browser tab I control", "I have no access to your desktop apps".
        id="self_referential.perception",
        category="self_referential",
        family="selfReferential",
        patterns=(
            r"\bI\s+(?:can\s+)?only\s+(?:see|get|receive|perceive|read|work|act|operate|interact|have\s+access\s+to)\b"
            r"(?:[ \t]+[^\s.!?;]+){0,8}?[ \t]+(?:the\s+)?(?:screenshots?|accessibility\s+tree|browser|tab|tabs|window"
            # Not "screen": "I only see a spinner in the middle of the screen" reports the page.
            r"|DOM|text\s+content|page\s+text)\b",
            r"\bI\s+work\s+only\s+(?:through|with|in)\b",
            r"\bI\s+(?:have|get)\s+no\s+access\s+to\s+(?:the\s+|your\s+|any\s+)?(?:audio|sound|desktop|local\s+files"
            r"|file\s+system|filesystem|camera|microphone|other\s+(?:apps|applications|tabs|windows))\b",
            # What the agent's harness gives it: "I have a shell and file-editing tools in this repo", "I don't have a
            # browser or general network access" (not "I don't have access to X": capability.unable's).
            r"\bI\s+(?:(?:do\s+not|don't|don’t|also|only)\s+)?have\s+(?:a|an|no)\s+(?:(?:web|headless|real|local)\s+)?"
            r"(?:shell|terminal|browser|internet\s+connection|network\s+connection|code\s+interpreter|sandbox)\b",
            # Its tools and memory: "I don't have a booking tool connected here", "I don't have memory of our earlier
            # conversations", "my toolset here is read-only", "my screenshots are limited to 1280×800".
            r"\bI\s+(?:do\s+not|don't|don’t)\s+have\s+(?:any\s+)?(?:memory\s+of|(?:a|an|the)\s+(?:[\p{L}-]+\s+)?tool\b"
            r"|(?:[\p{L}-]+\s+)?tools\s+(?:to|for|that)\b)",
            r"\bmy\s+(?:toolset|tool\s+set|tools|screenshots|sandbox|environment|setup|(?:[\p{L}-]+\s+)?profile)\s+"
            r"(?:here\s+|in\s+this\s+[\p{L}-]+\s+)?(?:is|are|seems\s+to\s+be|appears\s+to\s+be)\s+(?:only\s+)?"
            r"(?:read-only|limited|restricted|scoped)\b",
        ),
        assertion="self_referential",
        subject_group=None,
        fixed_subject="self",
        confidence=0.85,
        priority=2,
        examples=("I only receive screenshots, not audio.", "I can only see what is in the browser tab I control.",
                  "I have no access to your desktop apps or local files.", "I work only through screenshots.",
                  "I have a shell and file-editing tools in this repo.", "I don't have a browser here.",
                  "I don't have a booking tool connected here.", "My toolset here is read-only."),
    ),
    DetectorSpec(
        id="self_referential.tasked",
        category="self_referential",
        family="selfReferential",
        patterns=(
            r"\bI\s+(?:was|have\s+been|'ve\s+been|’ve\s+been)\s+(?:told|instructed|asked|tasked|programmed)\s+to\b",
            # "I'm designed to hand control back to you", "that's something I'm instructed to leave to a human"
            r"\bI(?:'m|’m|\s+am)\s+(?:(?:only|also|not)\s+)?(?:designed|built|programmed|configured|instructed)\s+to\b",
            # "I'm running in a sandboxed browser": the agent on where it runs.
            r"\bI(?:'m|’m|\s+am)\s+(?:currently\s+)?(?:running|operating|working)\s+(?:in|inside|on|from)\s+(?:a|an|the)\s+"
            r"(?:[\p{L}-]+\s+){0,2}?(?:sandbox(?:ed)?|browser|virtual\s+machine|vm|container|session|environment)\b",
            # "I'm not supposed to store passwords", "I was not given a budget limit".
            r"\bI(?:'m|’m|\s+am)\s+(?:not\s+)?supposed\s+to\b",
            r"\bI\s+(?:was|wasn't|wasn’t|was\s+not|have\s+not\s+been|haven't\s+been)\s+given\s+(?:a|an|any|the)\b",
            # A limit the agent's brief sets: "the task said not to use sudo", "the brief said to only report
            # status", "the instructions for this task say to stay on example-travel.test". Not "the task asks me
            # to find X": restating the task is narration.
            r"\b(?:the|my)\s+(?:task(?:\s+description)?|brief|assignment)\s+(?:says?|said|tells?\s+me|told\s+me)\s+"
            r"(?:not\s+to|to\s+only|only\s+to)\b",
            r"\b(?:the|my)\s+instructions\s+for\s+(?:this|the)\s+task\s+(?:say|said|tell\s+me|told\s+me)\s+"
            r"(?:(?:not|only)\s+)?to\b",
        ),
        assertion="self_referential",
        subject_group=None,
        fixed_subject="self",
        confidence=0.8,
        examples=("I was instructed to avoid the database.", "I'm designed to hand control back to you for payments.",
                  "I'm running in a sandboxed browser with no access to your phone.",
                  "I'm not supposed to store passwords.", "I was not given a budget limit.",
                  "The task said not to use sudo unless necessary.",
                  "The instructions for this task say to stay on example-travel.test."),
    ),
)
