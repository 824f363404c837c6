"""Long prose histories for bench/session_set.py: friends over months, and people talking with
Claude about their lives. Written for memtui (see session_set.py for how they are used)."""

from __future__ import annotations

from datetime import date

from session_set import Event, Story

E = Event

NADIA_JONAS = Story(
    key="nadia-jonas",
    cwd="/home/nadia/chats/jonas",
    people=("Nadia", "Jonas"),
    named=True,
    start=date(2024, 2, 3),
    sessions=14,
    held_back=False,
    themes=(
        (
            "Night shift was chaos again, three ambulances came in at once around two.",
            "I've been so tired lately, I slept through two alarms this morning.",
            "Running in the rain this morning was actually kind of nice.",
            "Work is busy, we're two nurses short on the ward this month.",
            "I made a big pot of lentil soup for the week, it's the only way I eat vegetables.",
            "My neighbour's cat keeps sitting on my balcony and staring at me through the glass.",
            "I'm reading a crime novel set in Lisbon, it makes me want to travel.",
            "My sister called, she's fine, still up at four every day for her bakery.",
            "Pottery is so relaxing, even when everything collapses on the wheel.",
            "I went for a long run along the river, the trees are turning already.",
            "Ha, that sounds exactly like your family.",
            "Oh no, I hope it gets better soon.",
            "That's lovely, honestly it made my day to hear that.",
            "How are the kids doing, still full of energy?",
        ),
        (
            "The kids were up at six again, Max wanted pancakes shaped like dinosaurs.",
            "I'm marking forty lab reports this weekend, send coffee.",
            "We had band practice last night and the drummer was late again.",
            "Sofie and I finally watched a whole film without falling asleep.",
            "The workshop is a mess, I really need to sort out my tools.",
            "Lea asked me why the sky is blue and I gave her a twenty minute lecture.",
            "School is hectic, exams start in two weeks.",
            "We went to the park and the kids collected about a hundred conkers.",
            "I've been sanding wood all afternoon, I'm covered in dust.",
            "Max has decided he wants to be an astronaut this week.",
            "Ha, I can picture it perfectly.",
            "That sounds rough, take it easy this week.",
            "That's great news, I'm really happy for you.",
            "How's work, still short of people?",
        ),
    ),
    events=(
        E(
            "pottery",
            0,
            0,
            (
                "I finally signed up for the wheel throwing pottery class at the community studio, "
                "Thursday evenings for eight weeks. My first bowl came out looking like an "
                "ashtray.",
                "Everyone's first bowl is an ashtray. Are you enjoying it?",
                "Honestly it's the only two hours a week my brain goes quiet after a night shift.",
            ),
        ),
        E(
            "bookshelf",
            0,
            1,
            (
                "I've started building a bookshelf for Lea's room out of the oak planks my "
                "neighbour "
                "gave me. Dovetail joints, which was a mistake for a first try.",
                "Dovetails on your first shelf? That's brave.",
            ),
        ),
        E(
            "signup",
            1,
            0,
            (
                "I registered for the Riverside half marathon in October. My longest run so far is "
                "twelve kilometres, so I've got work to do.",
                "That's a big goal! Do you have a plan?",
                "A sixteen week plan from my running club, four runs a week, the long one on "
                "Sundays.",
            ),
        ),
        E(
            "gig",
            1,
            1,
            (
                "My band got our first real gig, at the Crown and Anchor pub on the 18th. We're "
                "called The Late Trains now, Sofie came up with the name.",
                "I love that name! I'll be there, front row.",
            ),
        ),
        E(
            "gig-report",
            2,
            1,
            (
                "The gig went great, about forty people came and the landlord asked us back next "
                "month. I only messed up the bass line in one song.",
                "Forty people! See, I told you it would be fine.",
            ),
        ),
        E(
            "shelter",
            2,
            0,
            (
                "I started volunteering at the animal shelter on my days off, walking dogs and "
                "cleaning kennels. There's an old greyhound there that nobody wants.",
                "Uh oh, I can already feel where this is going.",
            ),
        ),
        E(
            "pixel",
            3,
            0,
            (
                "I did it, I adopted the old greyhound! His name is Pixel, he's six and he sleeps "
                "about twenty hours a day.",
                "Congratulations! He'll fit right in after your night shifts.",
            ),
        ),
        E(
            "science-fair",
            3,
            1,
            (
                "Lea won second place at the school science fair with a project on how fast seeds "
                "sprout under coloured light.",
                "Second place! Like father like daughter.",
            ),
        ),
        E(
            "knee",
            4,
            0,
            (
                "My knee started hurting after Sunday's long run. The physio says it's runner's "
                "knee and I have to cut my mileage for two weeks.",
                "Oh no, right in the middle of your training.",
            ),
        ),
        E(
            "lake",
            4,
            1,
            (
                "We took the kids camping at Lake Holm last weekend. Max saw his first shooting "
                "star "
                "and hasn't stopped talking about it.",
                "That's so sweet. Did it rain?",
                "Only the last night, and the tent held up.",
            ),
        ),
        E(
            "portuguese",
            5,
            0,
            (
                "I started learning Portuguese on an app so I can talk to my grandmother in Porto "
                "properly. She only knows a few words of English.",
                "That's lovely. How is it going?",
                "Slowly. I can order a coffee and complain about the weather.",
            ),
        ),
        E(
            "thumb",
            5,
            1,
            (
                "I cut my thumb on the table saw in the workshop, six stitches. Sofie has banned "
                "me "
                "from woodworking after ten at night.",
                "Ouch! Please be careful, I see far too many saw injuries at work.",
            ),
        ),
        E(
            "porto-trip",
            6,
            0,
            (
                "I booked flights to Porto for the first week of August, for my grandmother's "
                "ninetieth birthday.",
                "Ninety! Is there a big party?",
                "The whole family is coming, forty cousins in one garden.",
            ),
        ),
        E(
            "job-offer",
            6,
            1,
            (
                "I was offered the head of science job at my school, but it means less time in the "
                "classroom.",
                "Congratulations! Will you take it?",
                "I'm still thinking, I love teaching the kids.",
            ),
        ),
        E(
            "job-taken",
            7,
            1,
            (
                "I took the head of science position in the end. I start in September and I still "
                "teach two classes.",
                "That's the best of both worlds.",
            ),
        ),
        E(
            "mugs",
            7,
            0,
            (
                "The pottery studio had a sale and I sold six of my mugs! Twelve pounds each, I'm "
                "basically a professional now.",
                "Ha! Keep one for me.",
            ),
        ),
        E(
            "porto-back",
            8,
            0,
            (
                "I'm back from Porto. My grandmother cried when I spoke Portuguese to her at the "
                "birthday dinner. The app was worth every minute.",
                "That's beautiful, what a present for her.",
            ),
        ),
        E(
            "swimming",
            8,
            1,
            (
                "Max learned to swim this summer. He jumped into the deep end at the public pool "
                "without asking anyone.",
                "Fearless, like his dad with the table saw.",
            ),
        ),
        E(
            "race-day",
            9,
            0,
            (
                "I ran the Riverside half on Sunday! Two hours and four minutes, and my knee "
                "didn't "
                "complain once.",
                "Amazing! Under two hours next year?",
            ),
        ),
        E(
            "bookshelf-done",
            9,
            1,
            (
                "Lea's bookshelf is finally finished, eight months after I started it. The "
                "dovetails are ugly but it stands.",
                "Eight months! Send me a picture.",
            ),
        ),
        E(
            "day-shifts",
            10,
            0,
            (
                "I'm moving from night shifts to days at the hospital next month. Pixel will have "
                "to "
                "get used to me being home in the evenings.",
                "Your sleep will thank you.",
            ),
        ),
        E(
            "ep-recording",
            10,
            1,
            (
                "The Late Trains are recording a four song EP in a friend's garage studio. I'm "
                "writing the bass parts this week.",
                "An EP! Will it be on Spotify?",
            ),
        ),
        E(
            "teeth",
            11,
            0,
            (
                "Pixel had two teeth pulled at the vet, poor boy. He's eating soaked food and "
                "looks "
                "very offended about it.",
                "Poor Pixel. Old greyhounds and their teeth.",
            ),
        ),
        E(
            "jewellery-box",
            11,
            1,
            (
                "For Sofie's birthday I'm making her a walnut jewellery box, with her initials "
                "carved in the lid.",
                "She'll love it, as long as you keep all your fingers.",
            ),
        ),
        E(
            "masters",
            12,
            0,
            (
                "I applied for a master's in emergency nursing, part time over two years, starting "
                "next spring.",
                "You'll be brilliant. Will the hospital pay for it?",
                "Half of it, if I stay three more years.",
            ),
        ),
        E(
            "ep-out",
            12,
            1,
            (
                "Our EP came out on Friday, it's called Last Platform. Three hundred plays the "
                "first "
                "weekend.",
                "I've listened to it four times already, the second song is my favourite.",
            ),
        ),
        E(
            "accepted",
            13,
            0,
            (
                "I got into the master's programme! Classes start in March.",
                "I knew you would!",
            ),
        ),
        E(
            "winter-camping",
            13,
            1,
            (
                "We're planning winter camping in the mountains over New Year, with a wood stove "
                "in "
                "the tent. Sofie thinks I've lost my mind.",
                "She might be right. Pack extra blankets for the kids.",
            ),
        ),
    ),
    echoes=(
        ("pottery", "Pottery class was fun again tonight, I tried a vase and it collapsed."),
        ("pottery", "The pottery studio smells of wet clay and I love it."),
        ("bookshelf", "I spent Saturday in the workshop on Lea's shelf again, slow progress."),
        ("signup", "Training is going okay, long run on Sunday as usual."),
        ("signup", "The running club did hill repeats tonight, my legs are jelly."),
        ("gig", "The band is practising twice a week now, the pub wants new songs."),
        ("shelter", "I walked six dogs at the shelter today, all of them pulling."),
        ("pixel", "Pixel stole a whole baguette off the counter, I didn't know he could reach."),
        ("pixel", "Pixel says hello, he's asleep on the sofa as always."),
        ("science-fair", "Lea is already planning next year's science project."),
        ("knee", "My knee is a bit stiff after long runs but the physio exercises help."),
        ("lake", "Max is still talking about stars since our camping trip."),
        ("portuguese", "Portuguese lesson today was all about food words, I'm starving."),
        ("porto-trip", "Only a few weeks until Porto, my grandmother keeps calling about it."),
        ("job-offer", "School is busy, the science department meetings are endless."),
        ("mugs", "I'm making more mugs at the studio, people keep asking for them."),
        ("swimming", "Max wants to go to the pool every single day now."),
        ("race-day", "My running club wants me to do a full marathon next, no way."),
        ("ep-recording", "We're still mixing the songs, the drummer wants more cowbell."),
        ("masters", "Still waiting to hear back about the master's, I check my email hourly."),
    ),
    questions=(
        ("When did Nadia sign up for the pottery class?", ("pottery",)),
        ("What did Nadia's first pottery bowl look like?", ("pottery",)),
        ("What is Jonas building for Lea's room?", ("bookshelf", "bookshelf-done")),
        ("Which half marathon did Nadia register for?", ("signup",)),
        ("How many runs a week is Nadia's training plan?", ("signup.2",)),
        ("What is the name of Jonas's band?", ("gig",)),
        ("Where did the band play their first gig?", ("gig",)),
        ("How many people came to see the band at the pub?", ("gig-report",)),
        ("What does Nadia do on her days off?", ("shelter",)),
        ("What is the name of the dog Nadia adopted?", ("pixel",)),
        ("What was Lea's science fair project about?", ("science-fair",)),
        ("What did the physio tell Nadia about her knee?", ("knee",)),
        ("Where did Jonas take the kids camping?", ("lake",)),
        ("Why is Nadia learning Portuguese?", ("portuguese",)),
        ("How did Jonas hurt his thumb?", ("thumb",)),
        ("When is Nadia flying to Porto?", ("porto-trip",)),
        ("How old was Nadia's grandmother turning?", ("porto-trip", "porto-back")),
        ("What job was Jonas offered at his school?", ("job-offer", "job-taken")),
        ("How much did Nadia sell her mugs for?", ("mugs",)),
        ("How did Nadia's grandmother react at the birthday dinner?", ("porto-back",)),
        ("When did Max learn to swim?", ("swimming",)),
        ("What was Nadia's time in the half marathon?", ("race-day",)),
        ("Where are the Late Trains recording their EP?", ("ep-recording",)),
        ("Why did Pixel have to go to the vet?", ("teeth",)),
        ("What is Jonas making for Sofie's birthday?", ("jewellery-box",)),
        ("What is the band's EP called?", ("ep-out",)),
        ("What is Nadia going to study part time?", ("masters", "accepted")),
        ("Where does Jonas want to go over New Year?", ("winter-camping",)),
        ("When does Nadia switch from nights to day shifts?", ("day-shifts",)),
        ("What outdoor things does Jonas do with his kids?", ("lake", "winter-camping")),
    ),
)

PRIYA = Story(
    key="priya-claude",
    cwd="/home/priya/life",
    people=("Priya", "Claude"),
    named=False,
    start=date(2024, 4, 10),
    sessions=13,
    held_back=True,
    themes=(
        (
            "long day at work again, the dashboards broke right before the weekly review",
            "I'm exhausted, can we keep this short today?",
            "Rohan says hi, he's cooking tonight so I have some time",
            "it's raining again, I had plans to go for a walk after work",
            "I have way too many tabs open, both in my browser and in my head",
            "ok quick question before I forget",
            "thanks, that's really helpful",
            "my mom called this morning, she's doing ok",
            "I tried a new recipe last night and it was mostly edible",
            "I should really sleep more, it's almost midnight",
            "work is fine, just a lot of meetings this week",
        ),
        (
            "Of course, happy to keep it short. What's on your mind?",
            "That sounds like a long day. Take it one thing at a time.",
            "Glad it helped. Let me know how it goes.",
            "Rain days are good for slow evenings. Anything you want to plan?",
            "Sure, go ahead, I'm listening.",
            "That's good to hear. How is she feeling overall?",
            "Mostly edible is a win for a first try.",
            "Sleep matters more than one more task. We can pick this up tomorrow.",
            "A lot of meetings can drain you. Try to block an hour for focused work.",
            "Sounds like a full week. Is there anything I can help you plan?",
        ),
    ),
    events=(
        E(
            "engaged",
            0,
            0,
            (
                "big news: Rohan proposed on Saturday, at the lookout on Mount Tam where we had "
                "our "
                "first date!",
                "Congratulations to you both! Proposing where you had your first date is lovely. "
                "Have "
                "you thought about when you'd like the wedding to be?",
                "probably next September, we both want it outdoors",
            ),
        ),
        E(
            "new-job",
            1,
            0,
            (
                "I accepted the offer from Brightline, I start as a senior data analyst on June "
                "3rd. "
                "it's a 20% raise and I can work from home two days a week",
                "That's a great offer. Starting on June 3rd gives you time to wrap up at your "
                "current "
                "job. Do you want help planning your first weeks?",
            ),
        ),
        E(
            "venue",
            2,
            0,
            (
                "we visited three wedding venues, and we both loved the vineyard in Sonoma with "
                "the "
                "old oak tree. it holds 120 guests",
                "A vineyard with an oak tree sounds perfect for an outdoor ceremony. With 120 "
                "seats "
                "you'll need to keep the guest list tight.",
                "yes my mom's list alone is 80 people",
            ),
        ),
        E(
            "mom-surgery",
            3,
            0,
            (
                "my mom has her knee replacement surgery on the 14th, I'm flying to Chicago to "
                "stay "
                "with her for a week",
                "I hope the surgery goes smoothly. Plan for her to need help with stairs and meals "
                "in "
                "the first week; a shower chair and a raised toilet seat help a lot.",
            ),
        ),
        E(
            "guitar",
            3,
            0,
            (
                "also I bought a used acoustic guitar, a Yamaha, for 150 dollars. I want to learn "
                "three songs before the wedding",
                "A Yamaha acoustic is a great first guitar. Start with four chords: G, C, D and E "
                "minor cover hundreds of songs.",
            ),
        ),
        E(
            "mom-recovery",
            4,
            0,
            (
                "back from Chicago. mom's surgery went well, she's walking with a frame already "
                "and "
                "doing her physio exercises twice a day",
                "That's great progress for the first week. Keeping up the exercises is the most "
                "important part of recovery.",
            ),
        ),
        E(
            "apartment",
            5,
            0,
            (
                "we're looking for a bigger apartment, somewhere in Oakland with a second bedroom "
                "for "
                "an office, under 3200 a month",
                "For a two bedroom under 3,200 in Oakland, Rockridge and Temescal are worth a "
                "look, "
                "and listings often appear mid month.",
            ),
        ),
        E(
            "onboarding",
            5,
            0,
            (
                "first week at Brightline done. my manager Ellen is great, and I'm already fixing "
                "their churn dashboard which was counting trial users twice",
                "A good manager makes a big difference. Catching the double counted trial users in "
                "your first week is a strong start.",
            ),
        ),
        E(
            "dress",
            6,
            0,
            (
                "I found my wedding dress! a simple silk slip dress in champagne, from a small "
                "shop "
                "in the Mission",
                "A champagne silk slip dress sounds elegant and fits an outdoor vineyard wedding "
                "beautifully.",
            ),
        ),
        E(
            "lease",
            7,
            0,
            (
                "we signed a lease on a two bedroom in Rockridge, 3050 a month, moving in on the "
                "first of August",
                "Congratulations on the new place! Rockridge was a good call. Want a moving "
                "checklist "
                "for August?",
            ),
        ),
        E(
            "allergy",
            7,
            0,
            (
                "note for the caterer: Rohan's sister has a severe peanut allergy, and my dad is "
                "diabetic",
                "I'd tell the caterer early and in writing: a peanut free kitchen for the whole "
                "menu "
                "is safest, and ask for low sugar dessert options for your dad.",
            ),
        ),
        E(
            "song",
            8,
            0,
            (
                "guitar update: I can play Here Comes the Sun all the way through now, slowly. I "
                "want "
                "to play it for Rohan at the rehearsal dinner",
                "That's a lovely song to play for him. Practise the chord changes slowly with a "
                "metronome and speed up a little each week.",
            ),
        ),
        E(
            "promotion",
            9,
            0,
            (
                "Ellen put me on the pricing project, I'm building the model that decides the "
                "discounts for annual plans",
                "That's a visible project so early on. Keep notes on your assumptions: pricing "
                "models get questioned a lot.",
            ),
        ),
        E(
            "honeymoon",
            10,
            0,
            (
                "we decided on the honeymoon: two weeks in Japan in October, Kyoto and then the "
                "Kumano Kodo hike",
                "Kyoto and the Kumano Kodo is a wonderful mix of city and walking. Book the trail "
                "lodges early, they fill up in autumn.",
            ),
        ),
        E(
            "mom-walk",
            11,
            0,
            (
                "mom walked without her cane for the first time today, she sent me a video from "
                "her "
                "garden",
                "That's wonderful, only a few months after surgery. She must be so happy.",
            ),
        ),
        E(
            "invites",
            11,
            0,
            (
                "invitations went out, 112 guests, RSVP by August 1st. we used recycled paper with "
                "a "
                "little oak tree printed on it",
                "An oak tree on the invitations is a sweet nod to the venue. 112 guests leaves a "
                "little room at a venue for 120.",
            ),
        ),
        E(
            "vows",
            12,
            0,
            (
                "can you help me write my vows? I want to mention the lookout on Mount Tam and how "
                "Rohan always makes me laugh when I'm stressed",
                "Here's a start: 'On the lookout where we had our first date, I didn't know yet "
                "that "
                "you'd be the one who makes me laugh on my worst days.' Then add a promise or two "
                "in "
                "your own words.",
            ),
        ),
    ),
    echoes=(
        ("engaged", "wedding planning is taking over my life, Rohan made a spreadsheet"),
        ("new-job", "still getting used to the new job, so many new tools"),
        ("venue", "we went back to the vineyard to taste the wines for the reception"),
        ("mom-surgery", "mom has a check up with her surgeon next week"),
        ("guitar", "guitar practice tonight, my fingertips are so sore"),
        ("guitar", "I practised guitar for twenty minutes, the F chord is impossible"),
        ("apartment", "we saw two more apartments this weekend, both had tiny kitchens"),
        ("onboarding", "Ellen and I had our weekly one to one, it went well"),
        ("dress", "had my first dress fitting, it needs taking in a little"),
        ("lease", "packing boxes everywhere, the move is soon"),
        ("allergy", "the caterer sent a draft menu, we're going through it tonight"),
        ("promotion", "the pricing model is taking all my time this week"),
        ("honeymoon", "reading about Japan every night, I want to see everything"),
        ("invites", "RSVPs are coming in slowly, my aunt hasn't replied yet"),
    ),
    questions=(
        ("where did Rohan propose to me?", ("engaged",)),
        ("when did I get engaged?", ("engaged",)),
        ("when do I start at Brightline?", ("new-job",)),
        ("how much of a raise was the new job?", ("new-job",)),
        ("which wedding venue did we pick?", ("venue",)),
        ("how many guests does the vineyard hold?", ("venue",)),
        ("when was my mom's knee surgery?", ("mom-surgery",)),
        ("what guitar did I buy and how much was it?", ("guitar",)),
        ("how was mom doing after the knee replacement?", ("mom-recovery", "mom-walk")),
        ("what was our budget for the new apartment?", ("apartment",)),
        ("what was wrong with the churn dashboard at Brightline?", ("onboarding",)),
        ("who is my manager at the new job?", ("onboarding",)),
        ("what does my wedding dress look like?", ("dress",)),
        ("where is our new apartment and what's the rent?", ("lease",)),
        ("when are we moving into the new place?", ("lease",)),
        ("what allergies should the caterer know about?", ("allergy",)),
        ("which song am I learning on guitar for Rohan?", ("song",)),
        ("what project did Ellen put me on?", ("promotion",)),
        ("where are we going on our honeymoon?", ("honeymoon",)),
        ("what hike are we doing in Japan?", ("honeymoon",)),
        ("when did mom first walk without her cane?", ("mom-walk",)),
        ("how many guests did we invite to the wedding?", ("invites",)),
        ("what is printed on our wedding invitations?", ("invites",)),
        ("what did I want to say in my vows?", ("vows",)),
        ("what chords did you tell me to learn first?", ("guitar.1",)),
        ("any tips for looking after mom after surgery?", ("mom-surgery.1",)),
        ("which neighbourhoods did you suggest for the apartment search?", ("apartment.1",)),
    ),
)

TOMAS_INES = Story(
    key="tomas-ines",
    cwd="/home/tomas/messages/ines",
    people=("Tomás", "Inês"),
    named=False,
    start=date(2023, 9, 1),
    sessions=14,
    held_back=False,
    themes=(
        (
            "the weather on the coast has been wild this week, wind all day",
            "I spent the whole weekend at the harbour again, my hands smell of varnish",
            "work at the port office is boring as usual, lots of paperwork",
            "my brother visited, we grilled sardines on the balcony",
            "I keep meaning to call you earlier but the days disappear",
            "slept badly, the neighbours had a party until three",
            "I watched the sunset from the pier, you would have loved it",
            "haha yes, that is so typical",
            "oh that's great to hear",
            "how are you holding up with all of it?",
            "I'm proud of you, honestly",
        ),
        (
            "I was up at four again for the dough, my alarm hates me",
            "the oven at the shop made a strange noise today, I'm worried",
            "my feet hurt from standing all day but I'm happy",
            "we ran out of croissants by nine, which is a good problem",
            "my mother came by and reorganised the whole counter without asking",
            "I'm too tired to think, tell me something nice",
            "it rained all day so the shop was quiet",
            "haha you and that boat",
            "that sounds lovely, I'm jealous",
            "oh no, that's annoying",
            "send me a picture next time!",
        ),
    ),
    events=(
        E(
            "boat-bought",
            0,
            0,
            (
                "I did something crazy, I bought an old wooden sailboat, a 1968 Folkboat called "
                "Gaivota, for 4000 euros. she needs a lot of work",
                "a Folkboat! you've talked about sailing since we were kids. how much work is a "
                "lot?",
                "new deck, new sails, and the engine is more rust than engine",
            ),
        ),
        E(
            "lease-signed",
            0,
            1,
            (
                "and my news: I signed the lease for the bakery! the little shop on Rua das "
                "Flores, "
                "next to the pharmacy. I open in November",
                "Inês that's huge! your own bakery at last",
            ),
        ),
        E(
            "oven",
            1,
            1,
            (
                "I bought a second hand deck oven from a bakery that closed in Braga, it weighs "
                "900 "
                "kilos and it took six men to carry it in",
                "900 kilos! I hope the floor holds",
            ),
        ),
        E(
            "deck",
            1,
            0,
            (
                "I spent the whole week stripping the deck of the boat, under the old paint the "
                "teak "
                "is still good",
                "so the boat is not all rust then",
            ),
        ),
        E(
            "name",
            2,
            1,
            (
                "I finally chose a name for the bakery: Forno da Avó, after my grandmother's oven "
                "in "
                "the village",
                "that's perfect, she would have been so proud",
            ),
        ),
        E(
            "sails",
            3,
            0,
            (
                "I ordered new sails from a sailmaker in Aveiro, cream coloured, 1900 euros. more "
                "than half of what I paid for the whole boat",
                "haha typical boats. are they at least beautiful?",
            ),
        ),
        E(
            "opening",
            4,
            1,
            (
                "the bakery opened on Saturday! we sold out of pastéis de nata by ten and there "
                "was a "
                "queue outside the door",
                "I'm so happy for you, I wish I had been there. what sold best?",
                "the custard tarts and the corn bread, my grandmother's recipe",
            ),
        ),
        E(
            "engine",
            4,
            0,
            (
                "the engine is a lost cause, I'm replacing it with a small electric outboard. "
                "quieter "
                "anyway",
                "an electric motor on a 1968 boat, the purists will hate you",
            ),
        ),
        E(
            "hire",
            5,
            1,
            (
                "I hired my first employee, Duarte, a pastry student who works mornings. he's "
                "faster at laminating dough than me already",
                "your first employee! you're a real boss now",
            ),
        ),
        E(
            "launch",
            6,
            0,
            (
                "Gaivota is back in the water! we launched her on Sunday at the marina in Póvoa, "
                "my "
                "brother broke a bottle of vinho verde on the bow",
                "finally! did she float?",
                "she floated, and she only leaked a little",
            ),
        ),
        E(
            "review",
            7,
            1,
            (
                "a food critic from the Público newspaper wrote about the bakery, she called my "
                "custard tarts the best in the north",
                "the best in the north! frame that article",
            ),
        ),
        E(
            "storm",
            8,
            0,
            (
                "we got caught in a storm on the first long sail, coming back from Vila do Conde. "
                "the jib tore but nobody got hurt",
                "Tomás! that sounds terrifying, please be careful",
            ),
        ),
        E(
            "mother-help",
            8,
            1,
            (
                "my mother started helping at the counter on weekends. she tells every customer "
                "the "
                "bread is her recipe",
                "haha of course she does",
            ),
        ),
        E(
            "second-shop",
            9,
            1,
            (
                "the owner of the café across the square offered me his space. I'm thinking about "
                "opening a second bakery in Matosinhos",
                "a second shop already? that's a big step",
                "I know, I'm scared and excited",
            ),
        ),
        E(
            "course",
            10,
            0,
            (
                "I signed up for the skipper licence course at the sailing club in Leça, exams are "
                "in March",
                "good, after that storm a course sounds smart",
            ),
        ),
        E(
            "burn",
            11,
            1,
            (
                "I burned my arm on the deck oven, a bad one. the doctor said no work for a week "
                "and "
                "Duarte ran the whole shop",
                "ouch, how is it healing? and Duarte saved the day",
            ),
        ),
        E(
            "exam",
            12,
            0,
            (
                "I passed the skipper exam! the practical part was docking in a crosswind, I was "
                "sweating",
                "congratulations captain!",
            ),
        ),
        E(
            "decision",
            12,
            1,
            (
                "I decided: no second shop for now. I'd rather make one bakery great than two "
                "bakeries tired",
                "that sounds wise, and you will have time to breathe",
            ),
        ),
        E(
            "trip-plan",
            13,
            0,
            (
                "next summer I want to sail Gaivota down the coast to the Algarve, two weeks, will "
                "you come for the last part?",
                "if you promise no storms, yes!",
            ),
        ),
    ),
    echoes=(
        ("boat-bought", "another weekend on the boat, my back hurts"),
        ("boat-bought", "the boat is eating all my money but I love her"),
        ("lease-signed", "the bakery is taking all my time, I haven't seen the sea in weeks"),
        ("oven", "the oven is temperamental today, the bread came out pale"),
        ("sails", "the sailmaker called, my sails will be late"),
        ("opening", "the queue at the bakery was out the door again this morning"),
        ("hire", "Duarte is doing great, he's even inventing new pastries"),
        ("launch", "I took Gaivota out for an hour after work, perfect wind"),
        ("review", "since the newspaper article we get tourists every day"),
        ("storm", "I still think about that storm when the wind picks up"),
        ("course", "skipper course homework tonight, knots and tide tables"),
        ("second-shop", "I went to look at the café space again, still undecided"),
        ("burn", "my arm is healing, but I'm careful near the oven now"),
    ),
    questions=(
        ("What kind of boat did Tomás buy?", ("boat-bought",)),
        ("How much did Tomás pay for his sailboat?", ("boat-bought",)),
        ("Where is Inês opening her bakery?", ("lease-signed",)),
        ("Where did Inês get her oven from?", ("oven",)),
        ("What did Tomás find under the old paint?", ("deck",)),
        ("What is the name of Inês's bakery?", ("name",)),
        ("Why did Inês choose that name for the bakery?", ("name",)),
        ("How much did the new sails cost?", ("sails",)),
        ("When did the bakery open and how did it go?", ("opening",)),
        ("What sold best on the bakery's first day?", ("opening.2",)),
        ("What is Tomás putting on the boat instead of the engine?", ("engine",)),
        ("Who was Inês's first employee?", ("hire",)),
        ("Where did they launch Gaivota?", ("launch",)),
        ("What did the newspaper critic say about the bakery?", ("review",)),
        ("What happened on Tomás's first long sail?", ("storm",)),
        ("Who helps at the bakery counter on weekends?", ("mother-help",)),
        ("Where was Inês thinking of opening a second shop?", ("second-shop",)),
        ("Where is Tomás taking his skipper course?", ("course",)),
        ("How did Inês hurt her arm?", ("burn",)),
        ("Did Tomás pass his skipper exam?", ("exam",)),
        ("Did Inês open the second bakery in the end?", ("decision",)),
        ("Where does Tomás want to sail next summer?", ("trip-plan",)),
        ("Who ran the shop while Inês was injured?", ("burn",)),
        ("What broke during the storm?", ("storm",)),
        ("What did the bakery do to get through the busy mornings?", ("hire",)),
    ),
)

MARCUS = Story(
    key="marcus-claude",
    cwd="/home/marcus/notes",
    people=("Marcus", "Claude"),
    named=True,
    start=date(2024, 1, 8),
    sessions=12,
    held_back=True,
    themes=(
        (
            "Morning. Cold one today, the frost was still on the allotment at ten.",
            "I've had a quiet week, mostly reading and pottering about.",
            "My back is stiff again, too much digging.",
            "Margaret sends her regards, she's at her book club tonight.",
            "I'm going to keep this short, the grandchildren are coming for tea.",
            "I watched a documentary about owls last night, fascinating creatures.",
            "Thank you, that's very kind of you.",
            "I'll have a think about that and get back to you.",
            "The garden is a mess after all the rain.",
            "Not much news here, the days go quickly.",
        ),
        (
            "Good morning, Marcus. A frosty allotment sounds beautiful, if chilly.",
            "A quiet week can be a good thing. Anything you'd like to talk through today?",
            "Be gentle with your back. Short sessions of digging with breaks help.",
            "Please give Margaret my best. What would you like to look at today?",
            "Of course, let's keep it brief. Enjoy tea with the grandchildren.",
            "Owls are remarkable. Their hearing lets them hunt in complete darkness.",
            "You're welcome. I'm glad to help.",
            "Take your time, there's no rush.",
            "After heavy rain, it's best to stay off the beds until the soil dries a little.",
            "Quiet days have their own pleasures.",
        ),
    ),
    events=(
        E(
            "allotment",
            0,
            0,
            (
                "I've finally got an allotment, plot 14 at the Hollybush Lane gardens. It's been "
                "neglected for years, full of brambles.",
                "Congratulations on the plot. Clearing brambles is hard work: cut them back, then "
                "dig out the crowns, and cover the cleared ground with cardboard to keep weeds "
                "down.",
            ),
        ),
        E(
            "blood-pressure",
            1,
            0,
            (
                "The doctor says my blood pressure is too high, 152 over 95. She's started me on "
                "amlodipine, five milligrams, and wants me to cut down on salt.",
                "Many people manage blood pressure well with medication and a lower salt diet. "
                "Keeping a log of home readings will help your doctor adjust the dose.",
            ),
        ),
        E(
            "memoir",
            2,
            0,
            (
                "I've decided to write a memoir for the grandchildren, about growing up in the "
                "mining village in Durham and my forty years on the railways.",
                "What a gift for them. A simple way to start is one short chapter per place or "
                "job, "
                "written as if you were telling it aloud.",
            ),
        ),
        E(
            "grandson",
            3,
            0,
            (
                "My grandson Oliver got into Edinburgh to study geology. He says it's because of "
                "all "
                "the rocks I showed him on our walks.",
                "That's wonderful news. You clearly sparked something in him.",
            ),
        ),
        E(
            "birds",
            3,
            0,
            (
                "I saw a kingfisher on the canal this morning, the first in years. Bright blue, "
                "gone in a second.",
                "Kingfishers are a real treat to see. Canals with clear water and overhanging "
                "branches are their favourite hunting spots.",
            ),
        ),
        E(
            "japan-plan",
            4,
            0,
            (
                "Margaret and I are thinking about Japan for our fortieth anniversary in April, to "
                "see the cherry blossom. Is three weeks too long at our age?",
                "Three weeks is a good length if you pace it: a week in Kyoto, a few days in "
                "Hiroshima and Nara, and fewer hotel changes will make it restful.",
            ),
        ),
        E(
            "potatoes",
            5,
            0,
            (
                "Planted the first early potatoes on the allotment, Charlotte and Rocket "
                "varieties, "
                "and the broad beans are up.",
                "Good timing for first earlies. Earth them up as the shoots appear to protect them "
                "from late frost.",
            ),
        ),
        E(
            "fall",
            6,
            0,
            (
                "Bit of a scare, I slipped on the wet path by the shed and bruised my hip. Nothing "
                "broken, the X-ray was clear.",
                "I'm glad nothing is broken. A non-slip mat or gravel by the shed might prevent it "
                "happening again.",
            ),
        ),
        E(
            "japan-booked",
            7,
            0,
            (
                "We booked Japan! We fly from Manchester on the 28th of March, three weeks, and a "
                "night in a traditional inn with hot springs near Hakone.",
                "How exciting. A night at a ryokan with an onsen is a lovely way to mark forty "
                "years.",
            ),
        ),
        E(
            "memoir-chapter",
            8,
            0,
            (
                "I finished the chapter about the railway strike of 1982. Margaret cried reading "
                "it.",
                "That must have been a powerful chapter to write, and to read.",
            ),
        ),
        E(
            "readings",
            8,
            0,
            (
                "My blood pressure readings are down to about 132 over 84 since the tablets and "
                "cutting salt. The doctor is pleased.",
                "That's a real improvement. Keep up the log and the lower salt cooking.",
            ),
        ),
        E(
            "japan-back",
            9,
            0,
            (
                "We're back from Japan. The blossom in Kyoto was at its peak, and Margaret's "
                "favourite was the bamboo forest at Arashiyama.",
                "It sounds like you timed it perfectly. What was your own favourite part?",
                "The deer in Nara, they bow to you for biscuits.",
            ),
        ),
        E(
            "show",
            10,
            0,
            (
                "My onions won second prize at the allotment society show! Beaten only by Bill on "
                "plot 9, as usual.",
                "Congratulations! Second prize in your first season on that plot is impressive.",
            ),
        ),
        E(
            "printing",
            11,
            0,
            (
                "The memoir is done, 180 pages. I'm having twelve copies printed and bound for the "
                "family at a print shop in Darlington.",
                "What an achievement. Twelve bound copies will be treasured for generations.",
            ),
        ),
    ),
    echoes=(
        ("allotment", "Spent the morning at the allotment, the brambles are finally gone."),
        ("allotment", "The allotment society meeting was all about hosepipe rules."),
        ("blood-pressure", "I've been taking my tablets every morning with breakfast."),
        ("memoir", "Wrote another few pages of the memoir this week."),
        ("memoir", "I found old photographs of the village for the memoir."),
        ("grandson", "Oliver sent a postcard, he seems to be enjoying university."),
        ("birds", "Went down to the canal again, no luck with the birds this time."),
        ("japan-plan", "Margaret has bought a Japanese phrase book, she practises at dinner."),
        ("potatoes", "The allotment is looking green at last, the beans are climbing."),
        ("fall", "My hip is still a bit sore, I'm taking the path by the shed slowly."),
        ("japan-booked", "We've started packing for Japan, far too early according to Margaret."),
        ("show", "I'm already planning next year's onions for the show."),
    ),
    questions=(
        ("Which allotment plot did Marcus get?", ("allotment",)),
        ("How should Marcus clear the brambles on his plot?", ("allotment.1",)),
        ("What medication did the doctor prescribe for Marcus?", ("blood-pressure",)),
        ("What was Marcus's blood pressure reading at the doctor?", ("blood-pressure",)),
        ("What is Marcus writing about in his memoir?", ("memoir",)),
        ("Where is Oliver going to university?", ("grandson",)),
        ("What bird did Marcus see on the canal?", ("birds",)),
        ("Why are Marcus and Margaret going to Japan?", ("japan-plan",)),
        ("How long is the Japan trip?", ("japan-plan", "japan-booked")),
        ("What potatoes did Marcus plant?", ("potatoes",)),
        ("How did Marcus hurt his hip?", ("fall",)),
        ("When do Marcus and Margaret fly to Japan?", ("japan-booked",)),
        ("Where are they staying near Hakone?", ("japan-booked",)),
        ("Which memoir chapter made Margaret cry?", ("memoir-chapter",)),
        ("How are Marcus's blood pressure readings now?", ("readings",)),
        ("What was Margaret's favourite part of Japan?", ("japan-back",)),
        ("What did Marcus like most in Nara?", ("japan-back.2",)),
        ("What won a prize at the allotment show?", ("show",)),
        ("Who beat Marcus at the allotment show?", ("show",)),
        ("How many copies of the memoir is Marcus printing?", ("printing",)),
        ("Where is the memoir being printed?", ("printing",)),
        ("What did Marcus do for work for forty years?", ("memoir",)),
        ("What does Marcus grow on his allotment?", ("potatoes", "show")),
        ("What did Claude suggest to stop slipping by the shed?", ("fall.1",)),
    ),
)

LENA_SAM = Story(
    key="lena-sam",
    cwd="/home/lena/chat/sam",
    people=("Lena", "Sam"),
    named=True,
    start=date(2024, 6, 15),
    sessions=13,
    held_back=False,
    themes=(
        (
            "The lab was freezing today, someone left the cold room door open.",
            "I spent eight hours counting plankton under the microscope, my eyes are square.",
            "Berlin is so grey this week, I miss the sea.",
            "My flatmate made curry and the whole flat smells amazing.",
            "I practised the cello for an hour, the neighbours haven't complained yet.",
            "My supervisor replied to my email with one word again.",
            "Sorry I'm late replying, the seminar ran over.",
            "Haha, you and your kitchen drama.",
            "That's amazing, I'm so happy for you!",
            "Ugh, that sounds exhausting.",
            "How was service tonight?",
        ),
        (
            "Service was insane tonight, 140 covers and the fryer broke.",
            "I burned my wrist on the grill again, chefs' tattoos.",
            "Head chef yelled at the new guy for twenty minutes, I felt bad.",
            "I'm off tomorrow, I plan to sleep until noon.",
            "I made a new sauce today, brown butter and miso, it's good.",
            "Climbing gym after work, my forearms are dead.",
            "My dad's doing a bit better this week.",
            "Haha, classic scientist.",
            "That's so cool, tell me more!",
            "Oh no, are you okay?",
            "How's Berlin treating you?",
        ),
    ),
    events=(
        E(
            "phd-start",
            0,
            0,
            (
                "It's official, I start my PhD at the Leibniz Institute in Berlin in September, on "
                "how warming seas change plankton blooms in the Baltic.",
                "Lena that's amazing! A doctor of plankton. When do you move?",
                "End of August, I found a room in a flatshare in Neukölln.",
            ),
        ),
        E(
            "food-truck",
            0,
            1,
            (
                "I'm thinking of quitting the restaurant to start a food truck, Korean tacos. I "
                "found a used truck for 18,000.",
                "That's a big jump but you've talked about it for years!",
            ),
        ),
        E(
            "dad-ill",
            1,
            1,
            (
                "My dad was diagnosed with Parkinson's last week. He's taking it calmly, I'm not.",
                "Sam, I'm so sorry. I'm here whenever you want to talk.",
            ),
        ),
        E(
            "cello",
            1,
            0,
            (
                "I joined an amateur orchestra in Berlin, I'm third cello. We're playing Dvořák's "
                "New World symphony in December.",
                "You and your cello, finally back at it!",
            ),
        ),
        E(
            "truck-bought",
            2,
            1,
            (
                "I bought the truck! I'm calling it Seoul Food. My cousin is painting it bright "
                "yellow this weekend.",
                "Seoul Food is a perfect name.",
            ),
        ),
        E(
            "norway",
            3,
            0,
            (
                "I'm going on a research cruise off the coast of Norway in October, ten days on a "
                "ship taking water samples.",
                "Ten days on a boat, pack seasickness pills!",
            ),
        ),
        E(
            "permit",
            4,
            1,
            (
                "The city finally gave me the street vending permit, it took four months. First "
                "market is Saturday at Smorgasburg.",
                "Four months! Bureaucracy is the real boss.",
            ),
        ),
        E(
            "seasick",
            5,
            0,
            (
                "Back from Norway. I was seasick for three days straight, but we caught a huge "
                "bloom of Emiliania and I have samples for my first paper.",
                "Seasick but successful, very you.",
            ),
        ),
        E(
            "first-market",
            5,
            1,
            (
                "First market day with the truck: we sold 400 tacos and ran out of kimchi by two "
                "in "
                "the afternoon.",
                "400 tacos! You need a bigger kimchi jar.",
            ),
        ),
        E(
            "breakup",
            6,
            0,
            (
                "Felix and I broke up. It was mutual, the long distance was too hard with him "
                "still "
                "in Hamburg.",
                "I'm sorry Lena. Mutual still hurts. Want to talk tonight?",
            ),
        ),
        E(
            "climbing",
            6,
            1,
            (
                "I finally climbed my first 7a at the bouldering gym, a nasty overhang called The "
                "Lobster.",
                "Your forearms must be made of steel by now.",
            ),
        ),
        E(
            "concert",
            7,
            0,
            (
                "The orchestra concert went well! I messed up one entrance in the second movement "
                "but nobody noticed.",
                "Nobody ever notices, that's the secret of orchestras.",
            ),
        ),
        E(
            "dad-meds",
            8,
            1,
            (
                "Dad started a new medication for the tremor, levodopa, and his hands are much "
                "steadier. He made pancakes for the first time in months.",
                "Pancakes! That's such good news.",
            ),
        ),
        E(
            "paper",
            9,
            0,
            (
                "My first paper was accepted in Limnology and Oceanography! It's about the Norway "
                "bloom.",
                "Published scientist! We're celebrating next time you're home.",
            ),
        ),
        E(
            "award",
            10,
            1,
            (
                "Seoul Food won best new vendor at the city street food awards. The trophy is a "
                "golden spatula.",
                "A golden spatula! Hang it in the truck.",
            ),
        ),
        E(
            "flat",
            11,
            0,
            (
                "I'm moving out of the flatshare into my own tiny studio in Kreuzberg, near the "
                "canal. No more flatmate's curry though.",
                "Your own place! Worth losing the curry.",
            ),
        ),
        E(
            "second-truck",
            12,
            1,
            (
                "I'm buying a second truck for the spring, my cousin Min-jun will run it. Same "
                "menu, and a vegan bulgogi taco.",
                "An empire of tacos!",
            ),
        ),
        E(
            "visit",
            12,
            0,
            (
                "I'm coming home for Christmas, landing on the 21st. First stop your truck.",
                "I'll save you the last kimchi taco.",
            ),
        ),
    ),
    echoes=(
        ("phd-start", "PhD life is mostly reading papers and drinking bad coffee."),
        ("food-truck", "I keep looking at food trucks online instead of sleeping."),
        ("dad-ill", "Visited my dad today, he's in good spirits."),
        ("cello", "Orchestra rehearsal tonight, the conductor is very strict."),
        ("truck-bought", "The truck needed new tyres, of course it did."),
        ("norway", "Preparing sampling bottles for the cruise, hundreds of them."),
        ("permit", "The truck was at the market again today, good crowd."),
        ("first-market", "Another market day, we ran out of kimchi again."),
        ("breakup", "I'm doing better, the lab keeps me busy."),
        ("climbing", "Climbing gym again, still trying the next grade."),
        ("paper", "Revisions for the next paper, the reviewers want more data."),
        ("award", "People keep asking to take photos with the truck."),
    ),
    questions=(
        ("Where is Lena doing her PhD?", ("phd-start",)),
        ("What is Lena's PhD research about?", ("phd-start",)),
        ("Where did Lena find a room in Berlin?", ("phd-start.2",)),
        ("What kind of food truck does Sam want to start?", ("food-truck",)),
        ("What was Sam's dad diagnosed with?", ("dad-ill",)),
        ("Which orchestra piece is Lena playing in December?", ("cello",)),
        ("What is the name of Sam's food truck?", ("truck-bought",)),
        ("What colour is Sam's truck being painted?", ("truck-bought",)),
        ("Where is Lena's research cruise going?", ("norway",)),
        ("How long did it take Sam to get the vending permit?", ("permit",)),
        ("What happened to Lena on the Norway trip?", ("seasick",)),
        ("How many tacos did Sam sell on the first market day?", ("first-market",)),
        ("Why did Lena and Felix break up?", ("breakup",)),
        ("What was Sam's first 7a climb called?", ("climbing",)),
        ("How did Lena's orchestra concert go?", ("concert",)),
        ("What new medication is Sam's dad taking?", ("dad-meds",)),
        ("Which journal accepted Lena's first paper?", ("paper",)),
        ("What award did Seoul Food win?", ("award",)),
        ("Where is Lena's new studio flat?", ("flat",)),
        ("Who will run Sam's second truck?", ("second-truck",)),
        ("When is Lena coming home for Christmas?", ("visit",)),
        ("How is Sam's dad doing since the new treatment?", ("dad-meds",)),
        ("What is the trophy for the street food award?", ("award",)),
        ("What does Lena play in the orchestra?", ("cello",)),
        ("What new taco is on the second truck's menu?", ("second-truck",)),
    ),
)

AYESHA = Story(
    key="ayesha-claude",
    cwd="/Users/ayesha/assistant",
    people=("Ayesha", "Claude"),
    named=False,
    start=date(2024, 8, 20),
    sessions=12,
    held_back=True,
    themes=(
        (
            "hi again! the kids are finally asleep",
            "busy day, orders everywhere and the printer jammed twice",
            "I only have ten minutes before school pickup",
            "Imran says hello, he's watching the cricket",
            "the house is a mess but whatever",
            "ok next thing on my list",
            "thank you so much, that helps a lot",
            "I'm so tired, I need a holiday",
            "my mother in law is staying with us this week",
            "it's been raining all week and the kids are going stir crazy",
        ),
        (
            "Hi Ayesha! Glad the house is quiet. What can I help with?",
            "That sounds hectic. Let's get through your list one thing at a time.",
            "Ten minutes is enough, let's be quick.",
            "Say hi to Imran. What's on your mind today?",
            "A messy house means a lived-in house. What's next?",
            "Sure, go ahead.",
            "You're welcome, happy to help.",
            "You've had a lot on. Even a weekend away could help.",
            "Having family to stay can be lovely and tiring at the same time.",
            "Rainy weeks are hard with kids. Indoor treasure hunts can buy you an hour.",
        ),
    ),
    events=(
        E(
            "candles",
            0,
            0,
            (
                "I'm turning my candle hobby into a business, I'm calling it Ember & Oud, soy "
                "candles with Middle Eastern scents. can you help me price them?",
                "Happy to. Add up wax, fragrance oil, wick, jar and label per candle, then "
                "multiply "
                "by about 2.5 for wholesale and 5 for retail. For a 200g soy candle that often "
                "lands "
                "around 24 to 28 pounds retail.",
            ),
        ),
        E(
            "kitchen",
            1,
            0,
            (
                "we're redoing the kitchen in October, the builders quoted 14,500 for new units "
                "and "
                "worktops. is that reasonable?",
                "For a full set of units and worktops fitted, 14,500 is within the usual range. "
                "Get "
                "two more quotes and check whether plumbing and electrics are included.",
            ),
        ),
        E(
            "zara-reading",
            2,
            0,
            (
                "my daughter Zara's teacher says she's reading two years ahead of her age, she's "
                "seven and reading Harry Potter on her own",
                "That's wonderful. Keeping library trips regular and letting her pick her own "
                "books "
                "will keep the love of reading going.",
            ),
        ),
        E(
            "etsy",
            2,
            0,
            (
                "the Etsy shop went live on Monday and I sold 23 candles in the first week, mostly "
                "the saffron and rose one",
                "23 in the first week is a great start. Saffron and rose might be worth a bigger "
                "batch.",
            ),
        ),
        E(
            "car",
            3,
            0,
            (
                "the car failed its MOT, the brake discs and a tyre. the garage wants 480 pounds",
                "Brake discs and a tyre for 480 is roughly normal. You can ask the garage to "
                "itemise it, and tyres are often cheaper bought separately.",
            ),
        ),
        E(
            "ten-k",
            4,
            0,
            (
                "I signed up for the Manchester 10k in May with my sister Hana, I can barely run "
                "for the bus",
                "You have months to train. A couch to 10k plan with three short runs a week builds "
                "up "
                "slowly and gets most beginners there.",
            ),
        ),
        E(
            "market-stall",
            5,
            0,
            (
                "I got a stall at the Christmas market at the Corn Exchange, four weekends in "
                "December. I need 300 candles",
                "300 candles in a few weeks is a lot. Batch by scent, pour in the evenings, and "
                "leave at least two weeks for the soy wax to cure.",
            ),
        ),
        E(
            "kitchen-delay",
            6,
            0,
            (
                "the kitchen is delayed, the worktops arrived cracked and the new ones take three "
                "weeks. we're cooking on a camping stove in the living room",
                "That's frustrating. Ask the builder for a written date for the replacement and "
                "whether they'll cover the extra weeks.",
            ),
        ),
        E(
            "eid",
            6,
            0,
            (
                "planning ahead for Eid, we're hosting twenty people this year. I want to make my "
                "mum's lamb biryani but for twenty",
                "For twenty people, about 3 kilos of lamb and 2 kilos of basmati works well. "
                "Marinate "
                "the lamb overnight and cook the biryani in two large pots.",
            ),
        ),
        E(
            "market-result",
            7,
            0,
            (
                "the Christmas market was amazing, we sold out on the third weekend. the oud and "
                "amber candle was the bestseller",
                "Selling out early is a great sign. Oud and amber clearly has a following.",
            ),
        ),
        E(
            "shop-stockist",
            8,
            0,
            (
                "a gift shop in Didsbury wants to stock my candles, 60 a month at wholesale",
                "A stockist is a big step. At 60 a month, check your wholesale price still covers "
                "your time.",
            ),
        ),
        E(
            "training",
            9,
            0,
            (
                "running update: I ran 5k without stopping for the first time! 34 minutes",
                "That's a big milestone. From here, add a little distance to one run a week.",
            ),
        ),
        E(
            "kitchen-done",
            10,
            0,
            (
                "the kitchen is finally finished! green units and oak worktops, I love it",
                "Green with oak sounds beautiful. Enjoy cooking in a proper kitchen again.",
            ),
        ),
        E(
            "race",
            11,
            0,
            (
                "I ran the Manchester 10k with Hana! 1 hour 9 minutes, and we crossed the line "
                "holding hands",
                "Congratulations to you both! From running for the bus to a 10k is a huge change.",
            ),
        ),
    ),
    echoes=(
        ("candles", "I spent the whole evening pouring candles again"),
        ("candles", "the house smells of oud and vanilla, Imran is complaining"),
        ("kitchen", "we've been looking at kitchen tiles all weekend"),
        ("zara-reading", "Zara finished another book today, she reads at breakfast"),
        ("etsy", "more Etsy orders came in overnight, I need more jars"),
        ("car", "the car is making a funny noise again"),
        ("ten-k", "I went for a run with Hana this morning, we walked half of it"),
        ("market-stall", "pouring candles every night for the market, I'm exhausted"),
        ("kitchen-delay", "still cooking on the camping stove, the kids think it's fun"),
        ("eid", "I made a test biryani for Imran, he says more spice"),
        ("shop-stockist", "dropped off the first box of candles at the gift shop"),
        ("training", "running three times a week now, my knees are ok"),
    ),
    questions=(
        ("what is my candle business called?", ("candles",)),
        ("how should I price my candles?", ("candles.1",)),
        ("how much did the builders quote for the kitchen?", ("kitchen",)),
        ("what is Zara reading at the moment?", ("zara-reading",)),
        ("how many candles did I sell the first week on Etsy?", ("etsy",)),
        ("which candle scent sold best on Etsy?", ("etsy",)),
        ("why did the car fail its MOT?", ("car",)),
        ("how much did the garage want for the car repairs?", ("car",)),
        ("which race did I sign up for with Hana?", ("ten-k",)),
        ("where is my Christmas market stall?", ("market-stall",)),
        ("how many candles do I need for the market?", ("market-stall",)),
        ("why was the kitchen renovation delayed?", ("kitchen-delay",)),
        ("how much lamb do I need for biryani for twenty?", ("eid",)),
        ("how many people are we hosting for Eid?", ("eid",)),
        ("what was the bestseller at the Christmas market?", ("market-result",)),
        ("which shop wants to stock my candles?", ("shop-stockist",)),
        ("how long did it take me to run 5k?", ("training",)),
        ("what colour are the new kitchen units?", ("kitchen-done",)),
        ("what was my time in the Manchester 10k?", ("race",)),
        ("who did I run the 10k with?", ("ten-k", "race")),
        ("how long should soy wax candles cure?", ("market-stall.1",)),
        ("what training plan did you suggest for the 10k?", ("ten-k.1",)),
        ("when did the Etsy shop go live?", ("etsy",)),
        ("how long until the replacement worktops arrive?", ("kitchen-delay",)),
    ),
)

STORIES: tuple[Story, ...] = (NADIA_JONAS, PRIYA, TOMAS_INES, MARCUS, LENA_SAM, AYESHA)
