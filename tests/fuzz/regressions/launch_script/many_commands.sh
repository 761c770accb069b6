V0=$i
torchrun pretrain_gpt.py --x $V0
V1=$i
torchrun pretrain_gpt.py --x $V1
V2=$i
torchrun pretrain_gpt.py --x $V2
V3=$i
torchrun pretrain_gpt.py --x $V3
V4=$i
torchrun pretrain_gpt.py --x $V4
V5=$i
torchrun pretrain_gpt.py --x $V5
V6=$i
torchrun pretrain_gpt.py --x $V6
V7=$i
torchrun pretrain_gpt.py --x $V7
V8=$i
torchrun pretrain_gpt.py --x $V8
V9=$i
torchrun pretrain_gpt.py --x $V9
V10=$i
torchrun pretrain_gpt.py --x $V10
V11=$i
torchrun pretrain_gpt.py --x $V11
V12=$i
torchrun pretrain_gpt.py --x $V12
V13=$i
torchrun pretrain_gpt.py --x $V13
V14=$i
torchrun pretrain_gpt.py --x $V14
V15=$i
torchrun pretrain_gpt.py --x $V15
V16=$i
torchrun pretrain_gpt.py --x $V16
V17=$i
torchrun pretrain_gpt.py --x $V17
V18=$i
torchrun pretrain_gpt.py --x $V18
V19=$i
torchrun pretrain_gpt.py --x $V19
V20=$i
torchrun pretrain_gpt.py --x $V20
V21=$i
torchrun pretrain_gpt.py --x $V21
V22=$i
torchrun pretrain_gpt.py --x $V22
V23=$i
torchrun pretrain_gpt.py --x $V23
V24=$i
torchrun pretrain_gpt.py --x $V24
V25=$i
torchrun pretrain_gpt.py --x $V25
V26=$i
torchrun pretrain_gpt.py --x $V26
V27=$i
torchrun pretrain_gpt.py --x $V27
V28=$i
torchrun pretrain_gpt.py --x $V28
V29=$i
torchrun pretrain_gpt.py --x $V29
V30=$i
torchrun pretrain_gpt.py --x $V30
V31=$i
torchrun pretrain_gpt.py --x $V31
V32=$i
torchrun pretrain_gpt.py --x $V32
V33=$i
torchrun pretrain_gpt.py --x $V33
V34=$i
torchrun pretrain_gpt.py --x $V34
V35=$i
torchrun pretrain_gpt.py --x $V35
V36=$i
torchrun pretrain_gpt.py --x $V36
V37=$i
torchrun pretrain_gpt.py --x $V37
V38=$i
torchrun pretrain_gpt.py --x $V38
V39=$i
torchrun pretrain_gpt.py --x $V39
V40=$i
torchrun pretrain_gpt.py --x $V40
V41=$i
torchrun pretrain_gpt.py --x $V41
V42=$i
torchrun pretrain_gpt.py --x $V42
V43=$i
torchrun pretrain_gpt.py --x $V43
V44=$i
torchrun pretrain_gpt.py --x $V44
V45=$i
torchrun pretrain_gpt.py --x $V45
V46=$i
torchrun pretrain_gpt.py --x $V46
V47=$i
torchrun pretrain_gpt.py --x $V47
V48=$i
torchrun pretrain_gpt.py --x $V48
V49=$i
torchrun pretrain_gpt.py --x $V49
V50=$i
torchrun pretrain_gpt.py --x $V50
V51=$i
torchrun pretrain_gpt.py --x $V51
V52=$i
torchrun pretrain_gpt.py --x $V52
V53=$i
torchrun pretrain_gpt.py --x $V53
V54=$i
torchrun pretrain_gpt.py --x $V54
V55=$i
torchrun pretrain_gpt.py --x $V55
V56=$i
torchrun pretrain_gpt.py --x $V56
V57=$i
torchrun pretrain_gpt.py --x $V57
V58=$i
torchrun pretrain_gpt.py --x $V58
V59=$i
torchrun pretrain_gpt.py --x $V59
V60=$i
torchrun pretrain_gpt.py --x $V60
V61=$i
torchrun pretrain_gpt.py --x $V61
V62=$i
torchrun pretrain_gpt.py --x $V62
V63=$i
torchrun pretrain_gpt.py --x $V63
V64=$i
torchrun pretrain_gpt.py --x $V64
V65=$i
torchrun pretrain_gpt.py --x $V65
V66=$i
torchrun pretrain_gpt.py --x $V66
V67=$i
torchrun pretrain_gpt.py --x $V67
V68=$i
torchrun pretrain_gpt.py --x $V68
V69=$i
torchrun pretrain_gpt.py --x $V69
V70=$i
torchrun pretrain_gpt.py --x $V70
V71=$i
torchrun pretrain_gpt.py --x $V71
V72=$i
torchrun pretrain_gpt.py --x $V72
V73=$i
torchrun pretrain_gpt.py --x $V73
V74=$i
torchrun pretrain_gpt.py --x $V74
V75=$i
torchrun pretrain_gpt.py --x $V75
V76=$i
torchrun pretrain_gpt.py --x $V76
V77=$i
torchrun pretrain_gpt.py --x $V77
V78=$i
torchrun pretrain_gpt.py --x $V78
V79=$i
torchrun pretrain_gpt.py --x $V79
V80=$i
torchrun pretrain_gpt.py --x $V80
V81=$i
torchrun pretrain_gpt.py --x $V81
V82=$i
torchrun pretrain_gpt.py --x $V82
V83=$i
torchrun pretrain_gpt.py --x $V83
V84=$i
torchrun pretrain_gpt.py --x $V84
V85=$i
torchrun pretrain_gpt.py --x $V85
V86=$i
torchrun pretrain_gpt.py --x $V86
V87=$i
torchrun pretrain_gpt.py --x $V87
V88=$i
torchrun pretrain_gpt.py --x $V88
V89=$i
torchrun pretrain_gpt.py --x $V89
V90=$i
torchrun pretrain_gpt.py --x $V90
V91=$i
torchrun pretrain_gpt.py --x $V91
V92=$i
torchrun pretrain_gpt.py --x $V92
V93=$i
torchrun pretrain_gpt.py --x $V93
V94=$i
torchrun pretrain_gpt.py --x $V94
V95=$i
torchrun pretrain_gpt.py --x $V95
V96=$i
torchrun pretrain_gpt.py --x $V96
V97=$i
torchrun pretrain_gpt.py --x $V97
V98=$i
torchrun pretrain_gpt.py --x $V98
V99=$i
torchrun pretrain_gpt.py --x $V99
V100=$i
torchrun pretrain_gpt.py --x $V100
V101=$i
torchrun pretrain_gpt.py --x $V101
V102=$i
torchrun pretrain_gpt.py --x $V102
V103=$i
torchrun pretrain_gpt.py --x $V103
V104=$i
torchrun pretrain_gpt.py --x $V104
V105=$i
torchrun pretrain_gpt.py --x $V105
V106=$i
torchrun pretrain_gpt.py --x $V106
V107=$i
torchrun pretrain_gpt.py --x $V107
V108=$i
torchrun pretrain_gpt.py --x $V108
V109=$i
torchrun pretrain_gpt.py --x $V109
V110=$i
torchrun pretrain_gpt.py --x $V110
V111=$i
torchrun pretrain_gpt.py --x $V111
V112=$i
torchrun pretrain_gpt.py --x $V112
V113=$i
torchrun pretrain_gpt.py --x $V113
V114=$i
torchrun pretrain_gpt.py --x $V114
V115=$i
torchrun pretrain_gpt.py --x $V115
V116=$i
torchrun pretrain_gpt.py --x $V116
V117=$i
torchrun pretrain_gpt.py --x $V117
V118=$i
torchrun pretrain_gpt.py --x $V118
V119=$i
torchrun pretrain_gpt.py --x $V119
V120=$i
torchrun pretrain_gpt.py --x $V120
V121=$i
torchrun pretrain_gpt.py --x $V121
V122=$i
torchrun pretrain_gpt.py --x $V122
V123=$i
torchrun pretrain_gpt.py --x $V123
V124=$i
torchrun pretrain_gpt.py --x $V124
V125=$i
torchrun pretrain_gpt.py --x $V125
V126=$i
torchrun pretrain_gpt.py --x $V126
V127=$i
torchrun pretrain_gpt.py --x $V127
V128=$i
torchrun pretrain_gpt.py --x $V128
V129=$i
torchrun pretrain_gpt.py --x $V129
V130=$i
torchrun pretrain_gpt.py --x $V130
V131=$i
torchrun pretrain_gpt.py --x $V131
V132=$i
torchrun pretrain_gpt.py --x $V132
V133=$i
torchrun pretrain_gpt.py --x $V133
V134=$i
torchrun pretrain_gpt.py --x $V134
V135=$i
torchrun pretrain_gpt.py --x $V135
V136=$i
torchrun pretrain_gpt.py --x $V136
V137=$i
torchrun pretrain_gpt.py --x $V137
V138=$i
torchrun pretrain_gpt.py --x $V138
V139=$i
torchrun pretrain_gpt.py --x $V139
V140=$i
torchrun pretrain_gpt.py --x $V140
V141=$i
torchrun pretrain_gpt.py --x $V141
V142=$i
torchrun pretrain_gpt.py --x $V142
V143=$i
torchrun pretrain_gpt.py --x $V143
V144=$i
torchrun pretrain_gpt.py --x $V144
V145=$i
torchrun pretrain_gpt.py --x $V145
V146=$i
torchrun pretrain_gpt.py --x $V146
V147=$i
torchrun pretrain_gpt.py --x $V147
V148=$i
torchrun pretrain_gpt.py --x $V148
V149=$i
torchrun pretrain_gpt.py --x $V149
V150=$i
torchrun pretrain_gpt.py --x $V150
V151=$i
torchrun pretrain_gpt.py --x $V151
V152=$i
torchrun pretrain_gpt.py --x $V152
V153=$i
torchrun pretrain_gpt.py --x $V153
V154=$i
torchrun pretrain_gpt.py --x $V154
V155=$i
torchrun pretrain_gpt.py --x $V155
V156=$i
torchrun pretrain_gpt.py --x $V156
V157=$i
torchrun pretrain_gpt.py --x $V157
V158=$i
torchrun pretrain_gpt.py --x $V158
V159=$i
torchrun pretrain_gpt.py --x $V159
V160=$i
torchrun pretrain_gpt.py --x $V160
V161=$i
torchrun pretrain_gpt.py --x $V161
V162=$i
torchrun pretrain_gpt.py --x $V162
V163=$i
torchrun pretrain_gpt.py --x $V163
V164=$i
torchrun pretrain_gpt.py --x $V164
V165=$i
torchrun pretrain_gpt.py --x $V165
V166=$i
torchrun pretrain_gpt.py --x $V166
V167=$i
torchrun pretrain_gpt.py --x $V167
V168=$i
torchrun pretrain_gpt.py --x $V168
V169=$i
torchrun pretrain_gpt.py --x $V169
V170=$i
torchrun pretrain_gpt.py --x $V170
V171=$i
torchrun pretrain_gpt.py --x $V171
V172=$i
torchrun pretrain_gpt.py --x $V172
V173=$i
torchrun pretrain_gpt.py --x $V173
V174=$i
torchrun pretrain_gpt.py --x $V174
V175=$i
torchrun pretrain_gpt.py --x $V175
V176=$i
torchrun pretrain_gpt.py --x $V176
V177=$i
torchrun pretrain_gpt.py --x $V177
V178=$i
torchrun pretrain_gpt.py --x $V178
V179=$i
torchrun pretrain_gpt.py --x $V179
V180=$i
torchrun pretrain_gpt.py --x $V180
V181=$i
torchrun pretrain_gpt.py --x $V181
V182=$i
torchrun pretrain_gpt.py --x $V182
V183=$i
torchrun pretrain_gpt.py --x $V183
V184=$i
torchrun pretrain_gpt.py --x $V184
V185=$i
torchrun pretrain_gpt.py --x $V185
V186=$i
torchrun pretrain_gpt.py --x $V186
V187=$i
torchrun pretrain_gpt.py --x $V187
V188=$i
torchrun pretrain_gpt.py --x $V188
V189=$i
torchrun pretrain_gpt.py --x $V189
V190=$i
torchrun pretrain_gpt.py --x $V190
V191=$i
torchrun pretrain_gpt.py --x $V191
V192=$i
torchrun pretrain_gpt.py --x $V192
V193=$i
torchrun pretrain_gpt.py --x $V193
V194=$i
torchrun pretrain_gpt.py --x $V194
V195=$i
torchrun pretrain_gpt.py --x $V195
V196=$i
torchrun pretrain_gpt.py --x $V196
V197=$i
torchrun pretrain_gpt.py --x $V197
V198=$i
torchrun pretrain_gpt.py --x $V198
V199=$i
torchrun pretrain_gpt.py --x $V199
V200=$i
torchrun pretrain_gpt.py --x $V200
V201=$i
torchrun pretrain_gpt.py --x $V201
V202=$i
torchrun pretrain_gpt.py --x $V202
V203=$i
torchrun pretrain_gpt.py --x $V203
V204=$i
torchrun pretrain_gpt.py --x $V204
V205=$i
torchrun pretrain_gpt.py --x $V205
V206=$i
torchrun pretrain_gpt.py --x $V206
V207=$i
torchrun pretrain_gpt.py --x $V207
V208=$i
torchrun pretrain_gpt.py --x $V208
V209=$i
torchrun pretrain_gpt.py --x $V209
V210=$i
torchrun pretrain_gpt.py --x $V210
V211=$i
torchrun pretrain_gpt.py --x $V211
V212=$i
torchrun pretrain_gpt.py --x $V212
V213=$i
torchrun pretrain_gpt.py --x $V213
V214=$i
torchrun pretrain_gpt.py --x $V214
V215=$i
torchrun pretrain_gpt.py --x $V215
V216=$i
torchrun pretrain_gpt.py --x $V216
V217=$i
torchrun pretrain_gpt.py --x $V217
V218=$i
torchrun pretrain_gpt.py --x $V218
V219=$i
torchrun pretrain_gpt.py --x $V219
V220=$i
torchrun pretrain_gpt.py --x $V220
V221=$i
torchrun pretrain_gpt.py --x $V221
V222=$i
torchrun pretrain_gpt.py --x $V222
V223=$i
torchrun pretrain_gpt.py --x $V223
V224=$i
torchrun pretrain_gpt.py --x $V224
V225=$i
torchrun pretrain_gpt.py --x $V225
V226=$i
torchrun pretrain_gpt.py --x $V226
V227=$i
torchrun pretrain_gpt.py --x $V227
V228=$i
torchrun pretrain_gpt.py --x $V228
V229=$i
torchrun pretrain_gpt.py --x $V229
V230=$i
torchrun pretrain_gpt.py --x $V230
V231=$i
torchrun pretrain_gpt.py --x $V231
V232=$i
torchrun pretrain_gpt.py --x $V232
V233=$i
torchrun pretrain_gpt.py --x $V233
V234=$i
torchrun pretrain_gpt.py --x $V234
V235=$i
torchrun pretrain_gpt.py --x $V235
V236=$i
torchrun pretrain_gpt.py --x $V236
V237=$i
torchrun pretrain_gpt.py --x $V237
V238=$i
torchrun pretrain_gpt.py --x $V238
V239=$i
torchrun pretrain_gpt.py --x $V239
V240=$i
torchrun pretrain_gpt.py --x $V240
V241=$i
torchrun pretrain_gpt.py --x $V241
V242=$i
torchrun pretrain_gpt.py --x $V242
V243=$i
torchrun pretrain_gpt.py --x $V243
V244=$i
torchrun pretrain_gpt.py --x $V244
V245=$i
torchrun pretrain_gpt.py --x $V245
V246=$i
torchrun pretrain_gpt.py --x $V246
V247=$i
torchrun pretrain_gpt.py --x $V247
V248=$i
torchrun pretrain_gpt.py --x $V248
V249=$i
torchrun pretrain_gpt.py --x $V249
V250=$i
torchrun pretrain_gpt.py --x $V250
V251=$i
torchrun pretrain_gpt.py --x $V251
V252=$i
torchrun pretrain_gpt.py --x $V252
V253=$i
torchrun pretrain_gpt.py --x $V253
V254=$i
torchrun pretrain_gpt.py --x $V254
V255=$i
torchrun pretrain_gpt.py --x $V255
V256=$i
torchrun pretrain_gpt.py --x $V256
V257=$i
torchrun pretrain_gpt.py --x $V257
V258=$i
torchrun pretrain_gpt.py --x $V258
V259=$i
torchrun pretrain_gpt.py --x $V259
V260=$i
torchrun pretrain_gpt.py --x $V260
V261=$i
torchrun pretrain_gpt.py --x $V261
V262=$i
torchrun pretrain_gpt.py --x $V262
V263=$i
torchrun pretrain_gpt.py --x $V263
V264=$i
torchrun pretrain_gpt.py --x $V264
V265=$i
torchrun pretrain_gpt.py --x $V265
V266=$i
torchrun pretrain_gpt.py --x $V266
V267=$i
torchrun pretrain_gpt.py --x $V267
V268=$i
torchrun pretrain_gpt.py --x $V268
V269=$i
torchrun pretrain_gpt.py --x $V269
V270=$i
torchrun pretrain_gpt.py --x $V270
V271=$i
torchrun pretrain_gpt.py --x $V271
V272=$i
torchrun pretrain_gpt.py --x $V272
V273=$i
torchrun pretrain_gpt.py --x $V273
V274=$i
torchrun pretrain_gpt.py --x $V274
V275=$i
torchrun pretrain_gpt.py --x $V275
V276=$i
torchrun pretrain_gpt.py --x $V276
V277=$i
torchrun pretrain_gpt.py --x $V277
V278=$i
torchrun pretrain_gpt.py --x $V278
V279=$i
torchrun pretrain_gpt.py --x $V279
V280=$i
torchrun pretrain_gpt.py --x $V280
V281=$i
torchrun pretrain_gpt.py --x $V281
V282=$i
torchrun pretrain_gpt.py --x $V282
V283=$i
torchrun pretrain_gpt.py --x $V283
V284=$i
torchrun pretrain_gpt.py --x $V284
V285=$i
torchrun pretrain_gpt.py --x $V285
V286=$i
torchrun pretrain_gpt.py --x $V286
V287=$i
torchrun pretrain_gpt.py --x $V287
V288=$i
torchrun pretrain_gpt.py --x $V288
V289=$i
torchrun pretrain_gpt.py --x $V289
V290=$i
torchrun pretrain_gpt.py --x $V290
V291=$i
torchrun pretrain_gpt.py --x $V291
V292=$i
torchrun pretrain_gpt.py --x $V292
V293=$i
torchrun pretrain_gpt.py --x $V293
V294=$i
torchrun pretrain_gpt.py --x $V294
V295=$i
torchrun pretrain_gpt.py --x $V295
V296=$i
torchrun pretrain_gpt.py --x $V296
V297=$i
torchrun pretrain_gpt.py --x $V297
V298=$i
torchrun pretrain_gpt.py --x $V298
V299=$i
torchrun pretrain_gpt.py --x $V299
V300=$i
torchrun pretrain_gpt.py --x $V300
V301=$i
torchrun pretrain_gpt.py --x $V301
V302=$i
torchrun pretrain_gpt.py --x $V302
V303=$i
torchrun pretrain_gpt.py --x $V303
V304=$i
torchrun pretrain_gpt.py --x $V304
V305=$i
torchrun pretrain_gpt.py --x $V305
V306=$i
torchrun pretrain_gpt.py --x $V306
V307=$i
torchrun pretrain_gpt.py --x $V307
V308=$i
torchrun pretrain_gpt.py --x $V308
V309=$i
torchrun pretrain_gpt.py --x $V309
V310=$i
torchrun pretrain_gpt.py --x $V310
V311=$i
torchrun pretrain_gpt.py --x $V311
V312=$i
torchrun pretrain_gpt.py --x $V312
V313=$i
torchrun pretrain_gpt.py --x $V313
V314=$i
torchrun pretrain_gpt.py --x $V314
V315=$i
torchrun pretrain_gpt.py --x $V315
V316=$i
torchrun pretrain_gpt.py --x $V316
V317=$i
torchrun pretrain_gpt.py --x $V317
V318=$i
torchrun pretrain_gpt.py --x $V318
V319=$i
torchrun pretrain_gpt.py --x $V319
V320=$i
torchrun pretrain_gpt.py --x $V320
V321=$i
torchrun pretrain_gpt.py --x $V321
V322=$i
torchrun pretrain_gpt.py --x $V322
V323=$i
torchrun pretrain_gpt.py --x $V323
V324=$i
torchrun pretrain_gpt.py --x $V324
V325=$i
torchrun pretrain_gpt.py --x $V325
V326=$i
torchrun pretrain_gpt.py --x $V326
V327=$i
torchrun pretrain_gpt.py --x $V327
V328=$i
torchrun pretrain_gpt.py --x $V328
V329=$i
torchrun pretrain_gpt.py --x $V329
V330=$i
torchrun pretrain_gpt.py --x $V330
V331=$i
torchrun pretrain_gpt.py --x $V331
V332=$i
torchrun pretrain_gpt.py --x $V332
V333=$i
torchrun pretrain_gpt.py --x $V333
V334=$i
torchrun pretrain_gpt.py --x $V334
V335=$i
torchrun pretrain_gpt.py --x $V335
V336=$i
torchrun pretrain_gpt.py --x $V336
V337=$i
torchrun pretrain_gpt.py --x $V337
V338=$i
torchrun pretrain_gpt.py --x $V338
V339=$i
torchrun pretrain_gpt.py --x $V339
V340=$i
torchrun pretrain_gpt.py --x $V340
V341=$i
torchrun pretrain_gpt.py --x $V341
V342=$i
torchrun pretrain_gpt.py --x $V342
V343=$i
torchrun pretrain_gpt.py --x $V343
V344=$i
torchrun pretrain_gpt.py --x $V344
V345=$i
torchrun pretrain_gpt.py --x $V345
V346=$i
torchrun pretrain_gpt.py --x $V346
V347=$i
torchrun pretrain_gpt.py --x $V347
V348=$i
torchrun pretrain_gpt.py --x $V348
V349=$i
torchrun pretrain_gpt.py --x $V349
V350=$i
torchrun pretrain_gpt.py --x $V350
V351=$i
torchrun pretrain_gpt.py --x $V351
V352=$i
torchrun pretrain_gpt.py --x $V352
V353=$i
torchrun pretrain_gpt.py --x $V353
V354=$i
torchrun pretrain_gpt.py --x $V354
V355=$i
torchrun pretrain_gpt.py --x $V355
V356=$i
torchrun pretrain_gpt.py --x $V356
V357=$i
torchrun pretrain_gpt.py --x $V357
V358=$i
torchrun pretrain_gpt.py --x $V358
V359=$i
torchrun pretrain_gpt.py --x $V359
V360=$i
torchrun pretrain_gpt.py --x $V360
V361=$i
torchrun pretrain_gpt.py --x $V361
V362=$i
torchrun pretrain_gpt.py --x $V362
V363=$i
torchrun pretrain_gpt.py --x $V363
V364=$i
torchrun pretrain_gpt.py --x $V364
V365=$i
torchrun pretrain_gpt.py --x $V365
V366=$i
torchrun pretrain_gpt.py --x $V366
V367=$i
torchrun pretrain_gpt.py --x $V367
V368=$i
torchrun pretrain_gpt.py --x $V368
V369=$i
torchrun pretrain_gpt.py --x $V369
V370=$i
torchrun pretrain_gpt.py --x $V370
V371=$i
torchrun pretrain_gpt.py --x $V371
V372=$i
torchrun pretrain_gpt.py --x $V372
V373=$i
torchrun pretrain_gpt.py --x $V373
V374=$i
torchrun pretrain_gpt.py --x $V374
V375=$i
torchrun pretrain_gpt.py --x $V375
V376=$i
torchrun pretrain_gpt.py --x $V376
V377=$i
torchrun pretrain_gpt.py --x $V377
V378=$i
torchrun pretrain_gpt.py --x $V378
V379=$i
torchrun pretrain_gpt.py --x $V379
V380=$i
torchrun pretrain_gpt.py --x $V380
V381=$i
torchrun pretrain_gpt.py --x $V381
V382=$i
torchrun pretrain_gpt.py --x $V382
V383=$i
torchrun pretrain_gpt.py --x $V383
V384=$i
torchrun pretrain_gpt.py --x $V384
V385=$i
torchrun pretrain_gpt.py --x $V385
V386=$i
torchrun pretrain_gpt.py --x $V386
V387=$i
torchrun pretrain_gpt.py --x $V387
V388=$i
torchrun pretrain_gpt.py --x $V388
V389=$i
torchrun pretrain_gpt.py --x $V389
V390=$i
torchrun pretrain_gpt.py --x $V390
V391=$i
torchrun pretrain_gpt.py --x $V391
V392=$i
torchrun pretrain_gpt.py --x $V392
V393=$i
torchrun pretrain_gpt.py --x $V393
V394=$i
torchrun pretrain_gpt.py --x $V394
V395=$i
torchrun pretrain_gpt.py --x $V395
V396=$i
torchrun pretrain_gpt.py --x $V396
V397=$i
torchrun pretrain_gpt.py --x $V397
V398=$i
torchrun pretrain_gpt.py --x $V398
V399=$i
torchrun pretrain_gpt.py --x $V399
V400=$i
torchrun pretrain_gpt.py --x $V400
V401=$i
torchrun pretrain_gpt.py --x $V401
V402=$i
torchrun pretrain_gpt.py --x $V402
V403=$i
torchrun pretrain_gpt.py --x $V403
V404=$i
torchrun pretrain_gpt.py --x $V404
V405=$i
torchrun pretrain_gpt.py --x $V405
V406=$i
torchrun pretrain_gpt.py --x $V406
V407=$i
torchrun pretrain_gpt.py --x $V407
V408=$i
torchrun pretrain_gpt.py --x $V408
V409=$i
torchrun pretrain_gpt.py --x $V409
V410=$i
torchrun pretrain_gpt.py --x $V410
V411=$i
torchrun pretrain_gpt.py --x $V411
V412=$i
torchrun pretrain_gpt.py --x $V412
V413=$i
torchrun pretrain_gpt.py --x $V413
V414=$i
torchrun pretrain_gpt.py --x $V414
V415=$i
torchrun pretrain_gpt.py --x $V415
V416=$i
torchrun pretrain_gpt.py --x $V416
V417=$i
torchrun pretrain_gpt.py --x $V417
V418=$i
torchrun pretrain_gpt.py --x $V418
V419=$i
torchrun pretrain_gpt.py --x $V419
V420=$i
torchrun pretrain_gpt.py --x $V420
V421=$i
torchrun pretrain_gpt.py --x $V421
V422=$i
torchrun pretrain_gpt.py --x $V422
V423=$i
torchrun pretrain_gpt.py --x $V423
V424=$i
torchrun pretrain_gpt.py --x $V424
V425=$i
torchrun pretrain_gpt.py --x $V425
V426=$i
torchrun pretrain_gpt.py --x $V426
V427=$i
torchrun pretrain_gpt.py --x $V427
V428=$i
torchrun pretrain_gpt.py --x $V428
V429=$i
torchrun pretrain_gpt.py --x $V429
V430=$i
torchrun pretrain_gpt.py --x $V430
V431=$i
torchrun pretrain_gpt.py --x $V431
V432=$i
torchrun pretrain_gpt.py --x $V432
V433=$i
torchrun pretrain_gpt.py --x $V433
V434=$i
torchrun pretrain_gpt.py --x $V434
V435=$i
torchrun pretrain_gpt.py --x $V435
V436=$i
torchrun pretrain_gpt.py --x $V436
V437=$i
torchrun pretrain_gpt.py --x $V437
V438=$i
torchrun pretrain_gpt.py --x $V438
V439=$i
torchrun pretrain_gpt.py --x $V439
V440=$i
torchrun pretrain_gpt.py --x $V440
V441=$i
torchrun pretrain_gpt.py --x $V441
V442=$i
torchrun pretrain_gpt.py --x $V442
V443=$i
torchrun pretrain_gpt.py --x $V443
V444=$i
torchrun pretrain_gpt.py --x $V444
V445=$i
torchrun pretrain_gpt.py --x $V445
V446=$i
torchrun pretrain_gpt.py --x $V446
V447=$i
torchrun pretrain_gpt.py --x $V447
V448=$i
torchrun pretrain_gpt.py --x $V448
V449=$i
torchrun pretrain_gpt.py --x $V449
V450=$i
torchrun pretrain_gpt.py --x $V450
V451=$i
torchrun pretrain_gpt.py --x $V451
V452=$i
torchrun pretrain_gpt.py --x $V452
V453=$i
torchrun pretrain_gpt.py --x $V453
V454=$i
torchrun pretrain_gpt.py --x $V454
V455=$i
torchrun pretrain_gpt.py --x $V455
V456=$i
torchrun pretrain_gpt.py --x $V456
V457=$i
torchrun pretrain_gpt.py --x $V457
V458=$i
torchrun pretrain_gpt.py --x $V458
V459=$i
torchrun pretrain_gpt.py --x $V459
V460=$i
torchrun pretrain_gpt.py --x $V460
V461=$i
torchrun pretrain_gpt.py --x $V461
V462=$i
torchrun pretrain_gpt.py --x $V462
V463=$i
torchrun pretrain_gpt.py --x $V463
V464=$i
torchrun pretrain_gpt.py --x $V464
V465=$i
torchrun pretrain_gpt.py --x $V465
V466=$i
torchrun pretrain_gpt.py --x $V466
V467=$i
torchrun pretrain_gpt.py --x $V467
V468=$i
torchrun pretrain_gpt.py --x $V468
V469=$i
torchrun pretrain_gpt.py --x $V469
V470=$i
torchrun pretrain_gpt.py --x $V470
V471=$i
torchrun pretrain_gpt.py --x $V471
V472=$i
torchrun pretrain_gpt.py --x $V472
V473=$i
torchrun pretrain_gpt.py --x $V473
V474=$i
torchrun pretrain_gpt.py --x $V474
V475=$i
torchrun pretrain_gpt.py --x $V475
V476=$i
torchrun pretrain_gpt.py --x $V476
V477=$i
torchrun pretrain_gpt.py --x $V477
V478=$i
torchrun pretrain_gpt.py --x $V478
V479=$i
torchrun pretrain_gpt.py --x $V479
V480=$i
torchrun pretrain_gpt.py --x $V480
V481=$i
torchrun pretrain_gpt.py --x $V481
V482=$i
torchrun pretrain_gpt.py --x $V482
V483=$i
torchrun pretrain_gpt.py --x $V483
V484=$i
torchrun pretrain_gpt.py --x $V484
V485=$i
torchrun pretrain_gpt.py --x $V485
V486=$i
torchrun pretrain_gpt.py --x $V486
V487=$i
torchrun pretrain_gpt.py --x $V487
V488=$i
torchrun pretrain_gpt.py --x $V488
V489=$i
torchrun pretrain_gpt.py --x $V489
V490=$i
torchrun pretrain_gpt.py --x $V490
V491=$i
torchrun pretrain_gpt.py --x $V491
V492=$i
torchrun pretrain_gpt.py --x $V492
V493=$i
torchrun pretrain_gpt.py --x $V493
V494=$i
torchrun pretrain_gpt.py --x $V494
V495=$i
torchrun pretrain_gpt.py --x $V495
V496=$i
torchrun pretrain_gpt.py --x $V496
V497=$i
torchrun pretrain_gpt.py --x $V497
V498=$i
torchrun pretrain_gpt.py --x $V498
V499=$i
torchrun pretrain_gpt.py --x $V499
V500=$i
torchrun pretrain_gpt.py --x $V500
V501=$i
torchrun pretrain_gpt.py --x $V501
V502=$i
torchrun pretrain_gpt.py --x $V502
V503=$i
torchrun pretrain_gpt.py --x $V503
V504=$i
torchrun pretrain_gpt.py --x $V504
V505=$i
torchrun pretrain_gpt.py --x $V505
V506=$i
torchrun pretrain_gpt.py --x $V506
V507=$i
torchrun pretrain_gpt.py --x $V507
V508=$i
torchrun pretrain_gpt.py --x $V508
V509=$i
torchrun pretrain_gpt.py --x $V509
V510=$i
torchrun pretrain_gpt.py --x $V510
V511=$i
torchrun pretrain_gpt.py --x $V511
V512=$i
torchrun pretrain_gpt.py --x $V512
V513=$i
torchrun pretrain_gpt.py --x $V513
V514=$i
torchrun pretrain_gpt.py --x $V514
V515=$i
torchrun pretrain_gpt.py --x $V515
V516=$i
torchrun pretrain_gpt.py --x $V516
V517=$i
torchrun pretrain_gpt.py --x $V517
V518=$i
torchrun pretrain_gpt.py --x $V518
V519=$i
torchrun pretrain_gpt.py --x $V519
V520=$i
torchrun pretrain_gpt.py --x $V520
V521=$i
torchrun pretrain_gpt.py --x $V521
V522=$i
torchrun pretrain_gpt.py --x $V522
V523=$i
torchrun pretrain_gpt.py --x $V523
V524=$i
torchrun pretrain_gpt.py --x $V524
V525=$i
torchrun pretrain_gpt.py --x $V525
V526=$i
torchrun pretrain_gpt.py --x $V526
V527=$i
torchrun pretrain_gpt.py --x $V527
V528=$i
torchrun pretrain_gpt.py --x $V528
V529=$i
torchrun pretrain_gpt.py --x $V529
V530=$i
torchrun pretrain_gpt.py --x $V530
V531=$i
torchrun pretrain_gpt.py --x $V531
V532=$i
torchrun pretrain_gpt.py --x $V532
V533=$i
torchrun pretrain_gpt.py --x $V533
V534=$i
torchrun pretrain_gpt.py --x $V534
V535=$i
torchrun pretrain_gpt.py --x $V535
V536=$i
torchrun pretrain_gpt.py --x $V536
V537=$i
torchrun pretrain_gpt.py --x $V537
V538=$i
torchrun pretrain_gpt.py --x $V538
V539=$i
torchrun pretrain_gpt.py --x $V539
V540=$i
torchrun pretrain_gpt.py --x $V540
V541=$i
torchrun pretrain_gpt.py --x $V541
V542=$i
torchrun pretrain_gpt.py --x $V542
V543=$i
torchrun pretrain_gpt.py --x $V543
V544=$i
torchrun pretrain_gpt.py --x $V544
V545=$i
torchrun pretrain_gpt.py --x $V545
V546=$i
torchrun pretrain_gpt.py --x $V546
V547=$i
torchrun pretrain_gpt.py --x $V547
V548=$i
torchrun pretrain_gpt.py --x $V548
V549=$i
torchrun pretrain_gpt.py --x $V549
V550=$i
torchrun pretrain_gpt.py --x $V550
V551=$i
torchrun pretrain_gpt.py --x $V551
V552=$i
torchrun pretrain_gpt.py --x $V552
V553=$i
torchrun pretrain_gpt.py --x $V553
V554=$i
torchrun pretrain_gpt.py --x $V554
V555=$i
torchrun pretrain_gpt.py --x $V555
V556=$i
torchrun pretrain_gpt.py --x $V556
V557=$i
torchrun pretrain_gpt.py --x $V557
V558=$i
torchrun pretrain_gpt.py --x $V558
V559=$i
torchrun pretrain_gpt.py --x $V559
V560=$i
torchrun pretrain_gpt.py --x $V560
V561=$i
torchrun pretrain_gpt.py --x $V561
V562=$i
torchrun pretrain_gpt.py --x $V562
V563=$i
torchrun pretrain_gpt.py --x $V563
V564=$i
torchrun pretrain_gpt.py --x $V564
V565=$i
torchrun pretrain_gpt.py --x $V565
V566=$i
torchrun pretrain_gpt.py --x $V566
V567=$i
torchrun pretrain_gpt.py --x $V567
V568=$i
torchrun pretrain_gpt.py --x $V568
V569=$i
torchrun pretrain_gpt.py --x $V569
V570=$i
torchrun pretrain_gpt.py --x $V570
V571=$i
torchrun pretrain_gpt.py --x $V571
V572=$i
torchrun pretrain_gpt.py --x $V572
V573=$i
torchrun pretrain_gpt.py --x $V573
V574=$i
torchrun pretrain_gpt.py --x $V574
V575=$i
torchrun pretrain_gpt.py --x $V575
V576=$i
torchrun pretrain_gpt.py --x $V576
V577=$i
torchrun pretrain_gpt.py --x $V577
V578=$i
torchrun pretrain_gpt.py --x $V578
V579=$i
torchrun pretrain_gpt.py --x $V579
V580=$i
torchrun pretrain_gpt.py --x $V580
V581=$i
torchrun pretrain_gpt.py --x $V581
V582=$i
torchrun pretrain_gpt.py --x $V582
V583=$i
torchrun pretrain_gpt.py --x $V583
V584=$i
torchrun pretrain_gpt.py --x $V584
V585=$i
torchrun pretrain_gpt.py --x $V585
V586=$i
torchrun pretrain_gpt.py --x $V586
V587=$i
torchrun pretrain_gpt.py --x $V587
V588=$i
torchrun pretrain_gpt.py --x $V588
V589=$i
torchrun pretrain_gpt.py --x $V589
V590=$i
torchrun pretrain_gpt.py --x $V590
V591=$i
torchrun pretrain_gpt.py --x $V591
V592=$i
torchrun pretrain_gpt.py --x $V592
V593=$i
torchrun pretrain_gpt.py --x $V593
V594=$i
torchrun pretrain_gpt.py --x $V594
V595=$i
torchrun pretrain_gpt.py --x $V595
V596=$i
torchrun pretrain_gpt.py --x $V596
V597=$i
torchrun pretrain_gpt.py --x $V597
V598=$i
torchrun pretrain_gpt.py --x $V598
V599=$i
torchrun pretrain_gpt.py --x $V599
V600=$i
torchrun pretrain_gpt.py --x $V600
V601=$i
torchrun pretrain_gpt.py --x $V601
V602=$i
torchrun pretrain_gpt.py --x $V602
V603=$i
torchrun pretrain_gpt.py --x $V603
V604=$i
torchrun pretrain_gpt.py --x $V604
V605=$i
torchrun pretrain_gpt.py --x $V605
V606=$i
torchrun pretrain_gpt.py --x $V606
V607=$i
torchrun pretrain_gpt.py --x $V607
V608=$i
torchrun pretrain_gpt.py --x $V608
V609=$i
torchrun pretrain_gpt.py --x $V609
V610=$i
torchrun pretrain_gpt.py --x $V610
V611=$i
torchrun pretrain_gpt.py --x $V611
V612=$i
torchrun pretrain_gpt.py --x $V612
V613=$i
torchrun pretrain_gpt.py --x $V613
V614=$i
torchrun pretrain_gpt.py --x $V614
V615=$i
torchrun pretrain_gpt.py --x $V615
V616=$i
torchrun pretrain_gpt.py --x $V616
V617=$i
torchrun pretrain_gpt.py --x $V617
V618=$i
torchrun pretrain_gpt.py --x $V618
V619=$i
torchrun pretrain_gpt.py --x $V619
V620=$i
torchrun pretrain_gpt.py --x $V620
V621=$i
torchrun pretrain_gpt.py --x $V621
V622=$i
torchrun pretrain_gpt.py --x $V622
V623=$i
torchrun pretrain_gpt.py --x $V623
V624=$i
torchrun pretrain_gpt.py --x $V624
V625=$i
torchrun pretrain_gpt.py --x $V625
V626=$i
torchrun pretrain_gpt.py --x $V626
V627=$i
torchrun pretrain_gpt.py --x $V627
V628=$i
torchrun pretrain_gpt.py --x $V628
V629=$i
torchrun pretrain_gpt.py --x $V629
V630=$i
torchrun pretrain_gpt.py --x $V630
V631=$i
torchrun pretrain_gpt.py --x $V631
V632=$i
torchrun pretrain_gpt.py --x $V632
V633=$i
torchrun pretrain_gpt.py --x $V633
V634=$i
torchrun pretrain_gpt.py --x $V634
V635=$i
torchrun pretrain_gpt.py --x $V635
V636=$i
torchrun pretrain_gpt.py --x $V636
V637=$i
torchrun pretrain_gpt.py --x $V637
V638=$i
torchrun pretrain_gpt.py --x $V638
V639=$i
torchrun pretrain_gpt.py --x $V639
V640=$i
torchrun pretrain_gpt.py --x $V640
V641=$i
torchrun pretrain_gpt.py --x $V641
V642=$i
torchrun pretrain_gpt.py --x $V642
V643=$i
torchrun pretrain_gpt.py --x $V643
V644=$i
torchrun pretrain_gpt.py --x $V644
V645=$i
torchrun pretrain_gpt.py --x $V645
V646=$i
torchrun pretrain_gpt.py --x $V646
V647=$i
torchrun pretrain_gpt.py --x $V647
V648=$i
torchrun pretrain_gpt.py --x $V648
V649=$i
torchrun pretrain_gpt.py --x $V649
V650=$i
torchrun pretrain_gpt.py --x $V650
V651=$i
torchrun pretrain_gpt.py --x $V651
V652=$i
torchrun pretrain_gpt.py --x $V652
V653=$i
torchrun pretrain_gpt.py --x $V653
V654=$i
torchrun pretrain_gpt.py --x $V654
V655=$i
torchrun pretrain_gpt.py --x $V655
V656=$i
torchrun pretrain_gpt.py --x $V656
V657=$i
torchrun pretrain_gpt.py --x $V657
V658=$i
torchrun pretrain_gpt.py --x $V658
V659=$i
torchrun pretrain_gpt.py --x $V659
V660=$i
torchrun pretrain_gpt.py --x $V660
V661=$i
torchrun pretrain_gpt.py --x $V661
V662=$i
torchrun pretrain_gpt.py --x $V662
V663=$i
torchrun pretrain_gpt.py --x $V663
V664=$i
torchrun pretrain_gpt.py --x $V664
V665=$i
torchrun pretrain_gpt.py --x $V665
V666=$i
torchrun pretrain_gpt.py --x $V666
V667=$i
torchrun pretrain_gpt.py --x $V667
V668=$i
torchrun pretrain_gpt.py --x $V668
V669=$i
torchrun pretrain_gpt.py --x $V669
V670=$i
torchrun pretrain_gpt.py --x $V670
V671=$i
torchrun pretrain_gpt.py --x $V671
V672=$i
torchrun pretrain_gpt.py --x $V672
V673=$i
torchrun pretrain_gpt.py --x $V673
V674=$i
torchrun pretrain_gpt.py --x $V674
V675=$i
torchrun pretrain_gpt.py --x $V675
V676=$i
torchrun pretrain_gpt.py --x $V676
V677=$i
torchrun pretrain_gpt.py --x $V677
V678=$i
torchrun pretrain_gpt.py --x $V678
V679=$i
torchrun pretrain_gpt.py --x $V679
V680=$i
torchrun pretrain_gpt.py --x $V680
V681=$i
torchrun pretrain_gpt.py --x $V681
V682=$i
torchrun pretrain_gpt.py --x $V682
V683=$i
torchrun pretrain_gpt.py --x $V683
V684=$i
torchrun pretrain_gpt.py --x $V684
V685=$i
torchrun pretrain_gpt.py --x $V685
V686=$i
torchrun pretrain_gpt.py --x $V686
V687=$i
torchrun pretrain_gpt.py --x $V687
V688=$i
torchrun pretrain_gpt.py --x $V688
V689=$i
torchrun pretrain_gpt.py --x $V689
V690=$i
torchrun pretrain_gpt.py --x $V690
V691=$i
torchrun pretrain_gpt.py --x $V691
V692=$i
torchrun pretrain_gpt.py --x $V692
V693=$i
torchrun pretrain_gpt.py --x $V693
V694=$i
torchrun pretrain_gpt.py --x $V694
V695=$i
torchrun pretrain_gpt.py --x $V695
V696=$i
torchrun pretrain_gpt.py --x $V696
V697=$i
torchrun pretrain_gpt.py --x $V697
V698=$i
torchrun pretrain_gpt.py --x $V698
V699=$i
torchrun pretrain_gpt.py --x $V699
V700=$i
torchrun pretrain_gpt.py --x $V700
V701=$i
torchrun pretrain_gpt.py --x $V701
V702=$i
torchrun pretrain_gpt.py --x $V702
V703=$i
torchrun pretrain_gpt.py --x $V703
V704=$i
torchrun pretrain_gpt.py --x $V704
V705=$i
torchrun pretrain_gpt.py --x $V705
V706=$i
torchrun pretrain_gpt.py --x $V706
V707=$i
torchrun pretrain_gpt.py --x $V707
V708=$i
torchrun pretrain_gpt.py --x $V708
V709=$i
torchrun pretrain_gpt.py --x $V709
V710=$i
torchrun pretrain_gpt.py --x $V710
V711=$i
torchrun pretrain_gpt.py --x $V711
V712=$i
torchrun pretrain_gpt.py --x $V712
V713=$i
torchrun pretrain_gpt.py --x $V713
V714=$i
torchrun pretrain_gpt.py --x $V714
V715=$i
torchrun pretrain_gpt.py --x $V715
V716=$i
torchrun pretrain_gpt.py --x $V716
V717=$i
torchrun pretrain_gpt.py --x $V717
V718=$i
torchrun pretrain_gpt.py --x $V718
V719=$i
torchrun pretrain_gpt.py --x $V719
V720=$i
torchrun pretrain_gpt.py --x $V720
V721=$i
torchrun pretrain_gpt.py --x $V721
V722=$i
torchrun pretrain_gpt.py --x $V722
V723=$i
torchrun pretrain_gpt.py --x $V723
V724=$i
torchrun pretrain_gpt.py --x $V724
V725=$i
torchrun pretrain_gpt.py --x $V725
V726=$i
torchrun pretrain_gpt.py --x $V726
V727=$i
torchrun pretrain_gpt.py --x $V727
V728=$i
torchrun pretrain_gpt.py --x $V728
V729=$i
torchrun pretrain_gpt.py --x $V729
V730=$i
torchrun pretrain_gpt.py --x $V730
V731=$i
torchrun pretrain_gpt.py --x $V731
V732=$i
torchrun pretrain_gpt.py --x $V732
V733=$i
torchrun pretrain_gpt.py --x $V733
V734=$i
torchrun pretrain_gpt.py --x $V734
V735=$i
torchrun pretrain_gpt.py --x $V735
V736=$i
torchrun pretrain_gpt.py --x $V736
V737=$i
torchrun pretrain_gpt.py --x $V737
V738=$i
torchrun pretrain_gpt.py --x $V738
V739=$i
torchrun pretrain_gpt.py --x $V739
V740=$i
torchrun pretrain_gpt.py --x $V740
V741=$i
torchrun pretrain_gpt.py --x $V741
V742=$i
torchrun pretrain_gpt.py --x $V742
V743=$i
torchrun pretrain_gpt.py --x $V743
V744=$i
torchrun pretrain_gpt.py --x $V744
V745=$i
torchrun pretrain_gpt.py --x $V745
V746=$i
torchrun pretrain_gpt.py --x $V746
V747=$i
torchrun pretrain_gpt.py --x $V747
V748=$i
torchrun pretrain_gpt.py --x $V748
V749=$i
torchrun pretrain_gpt.py --x $V749
V750=$i
torchrun pretrain_gpt.py --x $V750
V751=$i
torchrun pretrain_gpt.py --x $V751
V752=$i
torchrun pretrain_gpt.py --x $V752
V753=$i
torchrun pretrain_gpt.py --x $V753
V754=$i
torchrun pretrain_gpt.py --x $V754
V755=$i
torchrun pretrain_gpt.py --x $V755
V756=$i
torchrun pretrain_gpt.py --x $V756
V757=$i
torchrun pretrain_gpt.py --x $V757
V758=$i
torchrun pretrain_gpt.py --x $V758
V759=$i
torchrun pretrain_gpt.py --x $V759
V760=$i
torchrun pretrain_gpt.py --x $V760
V761=$i
torchrun pretrain_gpt.py --x $V761
V762=$i
torchrun pretrain_gpt.py --x $V762
V763=$i
torchrun pretrain_gpt.py --x $V763
V764=$i
torchrun pretrain_gpt.py --x $V764
V765=$i
torchrun pretrain_gpt.py --x $V765
V766=$i
torchrun pretrain_gpt.py --x $V766
V767=$i
torchrun pretrain_gpt.py --x $V767
V768=$i
torchrun pretrain_gpt.py --x $V768
V769=$i
torchrun pretrain_gpt.py --x $V769
V770=$i
torchrun pretrain_gpt.py --x $V770
V771=$i
torchrun pretrain_gpt.py --x $V771
V772=$i
torchrun pretrain_gpt.py --x $V772
V773=$i
torchrun pretrain_gpt.py --x $V773
V774=$i
torchrun pretrain_gpt.py --x $V774
V775=$i
torchrun pretrain_gpt.py --x $V775
V776=$i
torchrun pretrain_gpt.py --x $V776
V777=$i
torchrun pretrain_gpt.py --x $V777
V778=$i
torchrun pretrain_gpt.py --x $V778
V779=$i
torchrun pretrain_gpt.py --x $V779
V780=$i
torchrun pretrain_gpt.py --x $V780
V781=$i
torchrun pretrain_gpt.py --x $V781
V782=$i
torchrun pretrain_gpt.py --x $V782
V783=$i
torchrun pretrain_gpt.py --x $V783
V784=$i
torchrun pretrain_gpt.py --x $V784
V785=$i
torchrun pretrain_gpt.py --x $V785
V786=$i
torchrun pretrain_gpt.py --x $V786
V787=$i
torchrun pretrain_gpt.py --x $V787
V788=$i
torchrun pretrain_gpt.py --x $V788
V789=$i
torchrun pretrain_gpt.py --x $V789
V790=$i
torchrun pretrain_gpt.py --x $V790
V791=$i
torchrun pretrain_gpt.py --x $V791
V792=$i
torchrun pretrain_gpt.py --x $V792
V793=$i
torchrun pretrain_gpt.py --x $V793
V794=$i
torchrun pretrain_gpt.py --x $V794
V795=$i
torchrun pretrain_gpt.py --x $V795
V796=$i
torchrun pretrain_gpt.py --x $V796
V797=$i
torchrun pretrain_gpt.py --x $V797
V798=$i
torchrun pretrain_gpt.py --x $V798
V799=$i
torchrun pretrain_gpt.py --x $V799
V800=$i
torchrun pretrain_gpt.py --x $V800
V801=$i
torchrun pretrain_gpt.py --x $V801
V802=$i
torchrun pretrain_gpt.py --x $V802
V803=$i
torchrun pretrain_gpt.py --x $V803
V804=$i
torchrun pretrain_gpt.py --x $V804
V805=$i
torchrun pretrain_gpt.py --x $V805
V806=$i
torchrun pretrain_gpt.py --x $V806
V807=$i
torchrun pretrain_gpt.py --x $V807
V808=$i
torchrun pretrain_gpt.py --x $V808
V809=$i
torchrun pretrain_gpt.py --x $V809
V810=$i
torchrun pretrain_gpt.py --x $V810
V811=$i
torchrun pretrain_gpt.py --x $V811
V812=$i
torchrun pretrain_gpt.py --x $V812
V813=$i
torchrun pretrain_gpt.py --x $V813
V814=$i
torchrun pretrain_gpt.py --x $V814
V815=$i
torchrun pretrain_gpt.py --x $V815
V816=$i
torchrun pretrain_gpt.py --x $V816
V817=$i
torchrun pretrain_gpt.py --x $V817
V818=$i
torchrun pretrain_gpt.py --x $V818
V819=$i
torchrun pretrain_gpt.py --x $V819
V820=$i
torchrun pretrain_gpt.py --x $V820
V821=$i
torchrun pretrain_gpt.py --x $V821
V822=$i
torchrun pretrain_gpt.py --x $V822
V823=$i
torchrun pretrain_gpt.py --x $V823
V824=$i
torchrun pretrain_gpt.py --x $V824
V825=$i
torchrun pretrain_gpt.py --x $V825
V826=$i
torchrun pretrain_gpt.py --x $V826
V827=$i
torchrun pretrain_gpt.py --x $V827
V828=$i
torchrun pretrain_gpt.py --x $V828
V829=$i
torchrun pretrain_gpt.py --x $V829
V830=$i
torchrun pretrain_gpt.py --x $V830
V831=$i
torchrun pretrain_gpt.py --x $V831
V832=$i
torchrun pretrain_gpt.py --x $V832
V833=$i
torchrun pretrain_gpt.py --x $V833
V834=$i
torchrun pretrain_gpt.py --x $V834
V835=$i
torchrun pretrain_gpt.py --x $V835
V836=$i
torchrun pretrain_gpt.py --x $V836
V837=$i
torchrun pretrain_gpt.py --x $V837
V838=$i
torchrun pretrain_gpt.py --x $V838
V839=$i
torchrun pretrain_gpt.py --x $V839
V840=$i
torchrun pretrain_gpt.py --x $V840
V841=$i
torchrun pretrain_gpt.py --x $V841
V842=$i
torchrun pretrain_gpt.py --x $V842
V843=$i
torchrun pretrain_gpt.py --x $V843
V844=$i
torchrun pretrain_gpt.py --x $V844
V845=$i
torchrun pretrain_gpt.py --x $V845
V846=$i
torchrun pretrain_gpt.py --x $V846
V847=$i
torchrun pretrain_gpt.py --x $V847
V848=$i
torchrun pretrain_gpt.py --x $V848
V849=$i
torchrun pretrain_gpt.py --x $V849
V850=$i
torchrun pretrain_gpt.py --x $V850
V851=$i
torchrun pretrain_gpt.py --x $V851
V852=$i
torchrun pretrain_gpt.py --x $V852
V853=$i
torchrun pretrain_gpt.py --x $V853
V854=$i
torchrun pretrain_gpt.py --x $V854
V855=$i
torchrun pretrain_gpt.py --x $V855
V856=$i
torchrun pretrain_gpt.py --x $V856
V857=$i
torchrun pretrain_gpt.py --x $V857
V858=$i
torchrun pretrain_gpt.py --x $V858
V859=$i
torchrun pretrain_gpt.py --x $V859
V860=$i
torchrun pretrain_gpt.py --x $V860
V861=$i
torchrun pretrain_gpt.py --x $V861
V862=$i
torchrun pretrain_gpt.py --x $V862
V863=$i
torchrun pretrain_gpt.py --x $V863
V864=$i
torchrun pretrain_gpt.py --x $V864
V865=$i
torchrun pretrain_gpt.py --x $V865
V866=$i
torchrun pretrain_gpt.py --x $V866
V867=$i
torchrun pretrain_gpt.py --x $V867
V868=$i
torchrun pretrain_gpt.py --x $V868
V869=$i
torchrun pretrain_gpt.py --x $V869
V870=$i
torchrun pretrain_gpt.py --x $V870
V871=$i
torchrun pretrain_gpt.py --x $V871
V872=$i
torchrun pretrain_gpt.py --x $V872
V873=$i
torchrun pretrain_gpt.py --x $V873
V874=$i
torchrun pretrain_gpt.py --x $V874
V875=$i
torchrun pretrain_gpt.py --x $V875
V876=$i
torchrun pretrain_gpt.py --x $V876
V877=$i
torchrun pretrain_gpt.py --x $V877
V878=$i
torchrun pretrain_gpt.py --x $V878
V879=$i
torchrun pretrain_gpt.py --x $V879
V880=$i
torchrun pretrain_gpt.py --x $V880
V881=$i
torchrun pretrain_gpt.py --x $V881
V882=$i
torchrun pretrain_gpt.py --x $V882
V883=$i
torchrun pretrain_gpt.py --x $V883
V884=$i
torchrun pretrain_gpt.py --x $V884
V885=$i
torchrun pretrain_gpt.py --x $V885
V886=$i
torchrun pretrain_gpt.py --x $V886
V887=$i
torchrun pretrain_gpt.py --x $V887
V888=$i
torchrun pretrain_gpt.py --x $V888
V889=$i
torchrun pretrain_gpt.py --x $V889
V890=$i
torchrun pretrain_gpt.py --x $V890
V891=$i
torchrun pretrain_gpt.py --x $V891
V892=$i
torchrun pretrain_gpt.py --x $V892
V893=$i
torchrun pretrain_gpt.py --x $V893
V894=$i
torchrun pretrain_gpt.py --x $V894
V895=$i
torchrun pretrain_gpt.py --x $V895
V896=$i
torchrun pretrain_gpt.py --x $V896
V897=$i
torchrun pretrain_gpt.py --x $V897
V898=$i
torchrun pretrain_gpt.py --x $V898
V899=$i
torchrun pretrain_gpt.py --x $V899
V900=$i
torchrun pretrain_gpt.py --x $V900
V901=$i
torchrun pretrain_gpt.py --x $V901
V902=$i
torchrun pretrain_gpt.py --x $V902
V903=$i
torchrun pretrain_gpt.py --x $V903
V904=$i
torchrun pretrain_gpt.py --x $V904
V905=$i
torchrun pretrain_gpt.py --x $V905
V906=$i
torchrun pretrain_gpt.py --x $V906
V907=$i
torchrun pretrain_gpt.py --x $V907
V908=$i
torchrun pretrain_gpt.py --x $V908
V909=$i
torchrun pretrain_gpt.py --x $V909
V910=$i
torchrun pretrain_gpt.py --x $V910
V911=$i
torchrun pretrain_gpt.py --x $V911
V912=$i
torchrun pretrain_gpt.py --x $V912
V913=$i
torchrun pretrain_gpt.py --x $V913
V914=$i
torchrun pretrain_gpt.py --x $V914
V915=$i
torchrun pretrain_gpt.py --x $V915
V916=$i
torchrun pretrain_gpt.py --x $V916
V917=$i
torchrun pretrain_gpt.py --x $V917
V918=$i
torchrun pretrain_gpt.py --x $V918
V919=$i
torchrun pretrain_gpt.py --x $V919
V920=$i
torchrun pretrain_gpt.py --x $V920
V921=$i
torchrun pretrain_gpt.py --x $V921
V922=$i
torchrun pretrain_gpt.py --x $V922
V923=$i
torchrun pretrain_gpt.py --x $V923
V924=$i
torchrun pretrain_gpt.py --x $V924
V925=$i
torchrun pretrain_gpt.py --x $V925
V926=$i
torchrun pretrain_gpt.py --x $V926
V927=$i
torchrun pretrain_gpt.py --x $V927
V928=$i
torchrun pretrain_gpt.py --x $V928
V929=$i
torchrun pretrain_gpt.py --x $V929
V930=$i
torchrun pretrain_gpt.py --x $V930
V931=$i
torchrun pretrain_gpt.py --x $V931
V932=$i
torchrun pretrain_gpt.py --x $V932
V933=$i
torchrun pretrain_gpt.py --x $V933
V934=$i
torchrun pretrain_gpt.py --x $V934
V935=$i
torchrun pretrain_gpt.py --x $V935
V936=$i
torchrun pretrain_gpt.py --x $V936
V937=$i
torchrun pretrain_gpt.py --x $V937
V938=$i
torchrun pretrain_gpt.py --x $V938
V939=$i
torchrun pretrain_gpt.py --x $V939
V940=$i
torchrun pretrain_gpt.py --x $V940
V941=$i
torchrun pretrain_gpt.py --x $V941
V942=$i
torchrun pretrain_gpt.py --x $V942
V943=$i
torchrun pretrain_gpt.py --x $V943
V944=$i
torchrun pretrain_gpt.py --x $V944
V945=$i
torchrun pretrain_gpt.py --x $V945
V946=$i
torchrun pretrain_gpt.py --x $V946
V947=$i
torchrun pretrain_gpt.py --x $V947
V948=$i
torchrun pretrain_gpt.py --x $V948
V949=$i
torchrun pretrain_gpt.py --x $V949
V950=$i
torchrun pretrain_gpt.py --x $V950
V951=$i
torchrun pretrain_gpt.py --x $V951
V952=$i
torchrun pretrain_gpt.py --x $V952
V953=$i
torchrun pretrain_gpt.py --x $V953
V954=$i
torchrun pretrain_gpt.py --x $V954
V955=$i
torchrun pretrain_gpt.py --x $V955
V956=$i
torchrun pretrain_gpt.py --x $V956
V957=$i
torchrun pretrain_gpt.py --x $V957
V958=$i
torchrun pretrain_gpt.py --x $V958
V959=$i
torchrun pretrain_gpt.py --x $V959
V960=$i
torchrun pretrain_gpt.py --x $V960
V961=$i
torchrun pretrain_gpt.py --x $V961
V962=$i
torchrun pretrain_gpt.py --x $V962
V963=$i
torchrun pretrain_gpt.py --x $V963
V964=$i
torchrun pretrain_gpt.py --x $V964
V965=$i
torchrun pretrain_gpt.py --x $V965
V966=$i
torchrun pretrain_gpt.py --x $V966
V967=$i
torchrun pretrain_gpt.py --x $V967
V968=$i
torchrun pretrain_gpt.py --x $V968
V969=$i
torchrun pretrain_gpt.py --x $V969
V970=$i
torchrun pretrain_gpt.py --x $V970
V971=$i
torchrun pretrain_gpt.py --x $V971
V972=$i
torchrun pretrain_gpt.py --x $V972
V973=$i
torchrun pretrain_gpt.py --x $V973
V974=$i
torchrun pretrain_gpt.py --x $V974
V975=$i
torchrun pretrain_gpt.py --x $V975
V976=$i
torchrun pretrain_gpt.py --x $V976
V977=$i
torchrun pretrain_gpt.py --x $V977
V978=$i
torchrun pretrain_gpt.py --x $V978
V979=$i
torchrun pretrain_gpt.py --x $V979
V980=$i
torchrun pretrain_gpt.py --x $V980
V981=$i
torchrun pretrain_gpt.py --x $V981
V982=$i
torchrun pretrain_gpt.py --x $V982
V983=$i
torchrun pretrain_gpt.py --x $V983
V984=$i
torchrun pretrain_gpt.py --x $V984
V985=$i
torchrun pretrain_gpt.py --x $V985
V986=$i
torchrun pretrain_gpt.py --x $V986
V987=$i
torchrun pretrain_gpt.py --x $V987
V988=$i
torchrun pretrain_gpt.py --x $V988
V989=$i
torchrun pretrain_gpt.py --x $V989
V990=$i
torchrun pretrain_gpt.py --x $V990
V991=$i
torchrun pretrain_gpt.py --x $V991
V992=$i
torchrun pretrain_gpt.py --x $V992
V993=$i
torchrun pretrain_gpt.py --x $V993
V994=$i
torchrun pretrain_gpt.py --x $V994
V995=$i
torchrun pretrain_gpt.py --x $V995
V996=$i
torchrun pretrain_gpt.py --x $V996
V997=$i
torchrun pretrain_gpt.py --x $V997
V998=$i
torchrun pretrain_gpt.py --x $V998
V999=$i
torchrun pretrain_gpt.py --x $V999
V1000=$i
torchrun pretrain_gpt.py --x $V1000
V1001=$i
torchrun pretrain_gpt.py --x $V1001
V1002=$i
torchrun pretrain_gpt.py --x $V1002
V1003=$i
torchrun pretrain_gpt.py --x $V1003
V1004=$i
torchrun pretrain_gpt.py --x $V1004
V1005=$i
torchrun pretrain_gpt.py --x $V1005
V1006=$i
torchrun pretrain_gpt.py --x $V1006
V1007=$i
torchrun pretrain_gpt.py --x $V1007
V1008=$i
torchrun pretrain_gpt.py --x $V1008
V1009=$i
torchrun pretrain_gpt.py --x $V1009
V1010=$i
torchrun pretrain_gpt.py --x $V1010
V1011=$i
torchrun pretrain_gpt.py --x $V1011
V1012=$i
torchrun pretrain_gpt.py --x $V1012
V1013=$i
torchrun pretrain_gpt.py --x $V1013
V1014=$i
torchrun pretrain_gpt.py --x $V1014
V1015=$i
torchrun pretrain_gpt.py --x $V1015
V1016=$i
torchrun pretrain_gpt.py --x $V1016
V1017=$i
torchrun pretrain_gpt.py --x $V1017
V1018=$i
torchrun pretrain_gpt.py --x $V1018
V1019=$i
torchrun pretrain_gpt.py --x $V1019
V1020=$i
torchrun pretrain_gpt.py --x $V1020
V1021=$i
torchrun pretrain_gpt.py --x $V1021
V1022=$i
torchrun pretrain_gpt.py --x $V1022
V1023=$i
torchrun pretrain_gpt.py --x $V1023
V1024=$i
torchrun pretrain_gpt.py --x $V1024
V1025=$i
torchrun pretrain_gpt.py --x $V1025
V1026=$i
torchrun pretrain_gpt.py --x $V1026
V1027=$i
torchrun pretrain_gpt.py --x $V1027
V1028=$i
torchrun pretrain_gpt.py --x $V1028
V1029=$i
torchrun pretrain_gpt.py --x $V1029
V1030=$i
torchrun pretrain_gpt.py --x $V1030
V1031=$i
torchrun pretrain_gpt.py --x $V1031
V1032=$i
torchrun pretrain_gpt.py --x $V1032
V1033=$i
torchrun pretrain_gpt.py --x $V1033
V1034=$i
torchrun pretrain_gpt.py --x $V1034
V1035=$i
torchrun pretrain_gpt.py --x $V1035
V1036=$i
torchrun pretrain_gpt.py --x $V1036
V1037=$i
torchrun pretrain_gpt.py --x $V1037
V1038=$i
torchrun pretrain_gpt.py --x $V1038
V1039=$i
torchrun pretrain_gpt.py --x $V1039
V1040=$i
torchrun pretrain_gpt.py --x $V1040
V1041=$i
torchrun pretrain_gpt.py --x $V1041
V1042=$i
torchrun pretrain_gpt.py --x $V1042
V1043=$i
torchrun pretrain_gpt.py --x $V1043
V1044=$i
torchrun pretrain_gpt.py --x $V1044
V1045=$i
torchrun pretrain_gpt.py --x $V1045
V1046=$i
torchrun pretrain_gpt.py --x $V1046
V1047=$i
torchrun pretrain_gpt.py --x $V1047
V1048=$i
torchrun pretrain_gpt.py --x $V1048
V1049=$i
torchrun pretrain_gpt.py --x $V1049
V1050=$i
torchrun pretrain_gpt.py --x $V1050
V1051=$i
torchrun pretrain_gpt.py --x $V1051
V1052=$i
torchrun pretrain_gpt.py --x $V1052
V1053=$i
torchrun pretrain_gpt.py --x $V1053
V1054=$i
torchrun pretrain_gpt.py --x $V1054
V1055=$i
torchrun pretrain_gpt.py --x $V1055
V1056=$i
torchrun pretrain_gpt.py --x $V1056
V1057=$i
torchrun pretrain_gpt.py --x $V1057
V1058=$i
torchrun pretrain_gpt.py --x $V1058
V1059=$i
torchrun pretrain_gpt.py --x $V1059
V1060=$i
torchrun pretrain_gpt.py --x $V1060
V1061=$i
torchrun pretrain_gpt.py --x $V1061
V1062=$i
torchrun pretrain_gpt.py --x $V1062
V1063=$i
torchrun pretrain_gpt.py --x $V1063
V1064=$i
torchrun pretrain_gpt.py --x $V1064
V1065=$i
torchrun pretrain_gpt.py --x $V1065
V1066=$i
torchrun pretrain_gpt.py --x $V1066
V1067=$i
torchrun pretrain_gpt.py --x $V1067
V1068=$i
torchrun pretrain_gpt.py --x $V1068
V1069=$i
torchrun pretrain_gpt.py --x $V1069
V1070=$i
torchrun pretrain_gpt.py --x $V1070
V1071=$i
torchrun pretrain_gpt.py --x $V1071
V1072=$i
torchrun pretrain_gpt.py --x $V1072
V1073=$i
torchrun pretrain_gpt.py --x $V1073
V1074=$i
torchrun pretrain_gpt.py --x $V1074
V1075=$i
torchrun pretrain_gpt.py --x $V1075
V1076=$i
torchrun pretrain_gpt.py --x $V1076
V1077=$i
torchrun pretrain_gpt.py --x $V1077
V1078=$i
torchrun pretrain_gpt.py --x $V1078
V1079=$i
torchrun pretrain_gpt.py --x $V1079
V1080=$i
torchrun pretrain_gpt.py --x $V1080
V1081=$i
torchrun pretrain_gpt.py --x $V1081
V1082=$i
torchrun pretrain_gpt.py --x $V1082
V1083=$i
torchrun pretrain_gpt.py --x $V1083
V1084=$i
torchrun pretrain_gpt.py --x $V1084
V1085=$i
torchrun pretrain_gpt.py --x $V1085
V1086=$i
torchrun pretrain_gpt.py --x $V1086
V1087=$i
torchrun pretrain_gpt.py --x $V1087
V1088=$i
torchrun pretrain_gpt.py --x $V1088
V1089=$i
torchrun pretrain_gpt.py --x $V1089
V1090=$i
torchrun pretrain_gpt.py --x $V1090
V1091=$i
torchrun pretrain_gpt.py --x $V1091
V1092=$i
torchrun pretrain_gpt.py --x $V1092
V1093=$i
torchrun pretrain_gpt.py --x $V1093
V1094=$i
torchrun pretrain_gpt.py --x $V1094
V1095=$i
torchrun pretrain_gpt.py --x $V1095
V1096=$i
torchrun pretrain_gpt.py --x $V1096
V1097=$i
torchrun pretrain_gpt.py --x $V1097
V1098=$i
torchrun pretrain_gpt.py --x $V1098
V1099=$i
torchrun pretrain_gpt.py --x $V1099
V1100=$i
torchrun pretrain_gpt.py --x $V1100
V1101=$i
torchrun pretrain_gpt.py --x $V1101
V1102=$i
torchrun pretrain_gpt.py --x $V1102
V1103=$i
torchrun pretrain_gpt.py --x $V1103
V1104=$i
torchrun pretrain_gpt.py --x $V1104
V1105=$i
torchrun pretrain_gpt.py --x $V1105
V1106=$i
torchrun pretrain_gpt.py --x $V1106
V1107=$i
torchrun pretrain_gpt.py --x $V1107
V1108=$i
torchrun pretrain_gpt.py --x $V1108
V1109=$i
torchrun pretrain_gpt.py --x $V1109
V1110=$i
torchrun pretrain_gpt.py --x $V1110
V1111=$i
torchrun pretrain_gpt.py --x $V1111
V1112=$i
torchrun pretrain_gpt.py --x $V1112
V1113=$i
torchrun pretrain_gpt.py --x $V1113
V1114=$i
torchrun pretrain_gpt.py --x $V1114
V1115=$i
torchrun pretrain_gpt.py --x $V1115
V1116=$i
torchrun pretrain_gpt.py --x $V1116
V1117=$i
torchrun pretrain_gpt.py --x $V1117
V1118=$i
torchrun pretrain_gpt.py --x $V1118
V1119=$i
torchrun pretrain_gpt.py --x $V1119
V1120=$i
torchrun pretrain_gpt.py --x $V1120
V1121=$i
torchrun pretrain_gpt.py --x $V1121
V1122=$i
torchrun pretrain_gpt.py --x $V1122
V1123=$i
torchrun pretrain_gpt.py --x $V1123
V1124=$i
torchrun pretrain_gpt.py --x $V1124
V1125=$i
torchrun pretrain_gpt.py --x $V1125
V1126=$i
torchrun pretrain_gpt.py --x $V1126
V1127=$i
torchrun pretrain_gpt.py --x $V1127
V1128=$i
torchrun pretrain_gpt.py --x $V1128
V1129=$i
torchrun pretrain_gpt.py --x $V1129
V1130=$i
torchrun pretrain_gpt.py --x $V1130
V1131=$i
torchrun pretrain_gpt.py --x $V1131
V1132=$i
torchrun pretrain_gpt.py --x $V1132
V1133=$i
torchrun pretrain_gpt.py --x $V1133
V1134=$i
torchrun pretrain_gpt.py --x $V1134
V1135=$i
torchrun pretrain_gpt.py --x $V1135
V1136=$i
torchrun pretrain_gpt.py --x $V1136
V1137=$i
torchrun pretrain_gpt.py --x $V1137
V1138=$i
torchrun pretrain_gpt.py --x $V1138
V1139=$i
torchrun pretrain_gpt.py --x $V1139
V1140=$i
torchrun pretrain_gpt.py --x $V1140
V1141=$i
torchrun pretrain_gpt.py --x $V1141
V1142=$i
torchrun pretrain_gpt.py --x $V1142
V1143=$i
torchrun pretrain_gpt.py --x $V1143
V1144=$i
torchrun pretrain_gpt.py --x $V1144
V1145=$i
torchrun pretrain_gpt.py --x $V1145
V1146=$i
torchrun pretrain_gpt.py --x $V1146
V1147=$i
torchrun pretrain_gpt.py --x $V1147
V1148=$i
torchrun pretrain_gpt.py --x $V1148
V1149=$i
torchrun pretrain_gpt.py --x $V1149
V1150=$i
torchrun pretrain_gpt.py --x $V1150
V1151=$i
torchrun pretrain_gpt.py --x $V1151
V1152=$i
torchrun pretrain_gpt.py --x $V1152
V1153=$i
torchrun pretrain_gpt.py --x $V1153
V1154=$i
torchrun pretrain_gpt.py --x $V1154
V1155=$i
torchrun pretrain_gpt.py --x $V1155
V1156=$i
torchrun pretrain_gpt.py --x $V1156
V1157=$i
torchrun pretrain_gpt.py --x $V1157
V1158=$i
torchrun pretrain_gpt.py --x $V1158
V1159=$i
torchrun pretrain_gpt.py --x $V1159
V1160=$i
torchrun pretrain_gpt.py --x $V1160
V1161=$i
torchrun pretrain_gpt.py --x $V1161
V1162=$i
torchrun pretrain_gpt.py --x $V1162
V1163=$i
torchrun pretrain_gpt.py --x $V1163
V1164=$i
torchrun pretrain_gpt.py --x $V1164
V1165=$i
torchrun pretrain_gpt.py --x $V1165
V1166=$i
torchrun pretrain_gpt.py --x $V1166
V1167=$i
torchrun pretrain_gpt.py --x $V1167
V1168=$i
torchrun pretrain_gpt.py --x $V1168
V1169=$i
torchrun pretrain_gpt.py --x $V1169
V1170=$i
torchrun pretrain_gpt.py --x $V1170
V1171=$i
torchrun pretrain_gpt.py --x $V1171
V1172=$i
torchrun pretrain_gpt.py --x $V1172
V1173=$i
torchrun pretrain_gpt.py --x $V1173
V1174=$i
torchrun pretrain_gpt.py --x $V1174
V1175=$i
torchrun pretrain_gpt.py --x $V1175
V1176=$i
torchrun pretrain_gpt.py --x $V1176
V1177=$i
torchrun pretrain_gpt.py --x $V1177
V1178=$i
torchrun pretrain_gpt.py --x $V1178
V1179=$i
torchrun pretrain_gpt.py --x $V1179
V1180=$i
torchrun pretrain_gpt.py --x $V1180
V1181=$i
torchrun pretrain_gpt.py --x $V1181
V1182=$i
torchrun pretrain_gpt.py --x $V1182
V1183=$i
torchrun pretrain_gpt.py --x $V1183
V1184=$i
torchrun pretrain_gpt.py --x $V1184
V1185=$i
torchrun pretrain_gpt.py --x $V1185
V1186=$i
torchrun pretrain_gpt.py --x $V1186
V1187=$i
torchrun pretrain_gpt.py --x $V1187
V1188=$i
torchrun pretrain_gpt.py --x $V1188
V1189=$i
torchrun pretrain_gpt.py --x $V1189
V1190=$i
torchrun pretrain_gpt.py --x $V1190
V1191=$i
torchrun pretrain_gpt.py --x $V1191
V1192=$i
torchrun pretrain_gpt.py --x $V1192
V1193=$i
torchrun pretrain_gpt.py --x $V1193
V1194=$i
torchrun pretrain_gpt.py --x $V1194
V1195=$i
torchrun pretrain_gpt.py --x $V1195
V1196=$i
torchrun pretrain_gpt.py --x $V1196
V1197=$i
torchrun pretrain_gpt.py --x $V1197
V1198=$i
torchrun pretrain_gpt.py --x $V1198
V1199=$i
torchrun pretrain_gpt.py --x $V1199
V1200=$i
torchrun pretrain_gpt.py --x $V1200
V1201=$i
torchrun pretrain_gpt.py --x $V1201
V1202=$i
torchrun pretrain_gpt.py --x $V1202
V1203=$i
torchrun pretrain_gpt.py --x $V1203
V1204=$i
torchrun pretrain_gpt.py --x $V1204
V1205=$i
torchrun pretrain_gpt.py --x $V1205
V1206=$i
torchrun pretrain_gpt.py --x $V1206
V1207=$i
torchrun pretrain_gpt.py --x $V1207
V1208=$i
torchrun pretrain_gpt.py --x $V1208
V1209=$i
torchrun pretrain_gpt.py --x $V1209
V1210=$i
torchrun pretrain_gpt.py --x $V1210
V1211=$i
torchrun pretrain_gpt.py --x $V1211
V1212=$i
torchrun pretrain_gpt.py --x $V1212
V1213=$i
torchrun pretrain_gpt.py --x $V1213
V1214=$i
torchrun pretrain_gpt.py --x $V1214
V1215=$i
torchrun pretrain_gpt.py --x $V1215
V1216=$i
torchrun pretrain_gpt.py --x $V1216
V1217=$i
torchrun pretrain_gpt.py --x $V1217
V1218=$i
torchrun pretrain_gpt.py --x $V1218
V1219=$i
torchrun pretrain_gpt.py --x $V1219
V1220=$i
torchrun pretrain_gpt.py --x $V1220
V1221=$i
torchrun pretrain_gpt.py --x $V1221
V1222=$i
torchrun pretrain_gpt.py --x $V1222
V1223=$i
torchrun pretrain_gpt.py --x $V1223
V1224=$i
torchrun pretrain_gpt.py --x $V1224
V1225=$i
torchrun pretrain_gpt.py --x $V1225
V1226=$i
torchrun pretrain_gpt.py --x $V1226
V1227=$i
torchrun pretrain_gpt.py --x $V1227
V1228=$i
torchrun pretrain_gpt.py --x $V1228
V1229=$i
torchrun pretrain_gpt.py --x $V1229
V1230=$i
torchrun pretrain_gpt.py --x $V1230
V1231=$i
torchrun pretrain_gpt.py --x $V1231
V1232=$i
torchrun pretrain_gpt.py --x $V1232
V1233=$i
torchrun pretrain_gpt.py --x $V1233
V1234=$i
torchrun pretrain_gpt.py --x $V1234
V1235=$i
torchrun pretrain_gpt.py --x $V1235
V1236=$i
torchrun pretrain_gpt.py --x $V1236
V1237=$i
torchrun pretrain_gpt.py --x $V1237
V1238=$i
torchrun pretrain_gpt.py --x $V1238
V1239=$i
torchrun pretrain_gpt.py --x $V1239
V1240=$i
torchrun pretrain_gpt.py --x $V1240
V1241=$i
torchrun pretrain_gpt.py --x $V1241
V1242=$i
torchrun pretrain_gpt.py --x $V1242
V1243=$i
torchrun pretrain_gpt.py --x $V1243
V1244=$i
torchrun pretrain_gpt.py --x $V1244
V1245=$i
torchrun pretrain_gpt.py --x $V1245
V1246=$i
torchrun pretrain_gpt.py --x $V1246
V1247=$i
torchrun pretrain_gpt.py --x $V1247
V1248=$i
torchrun pretrain_gpt.py --x $V1248
V1249=$i
torchrun pretrain_gpt.py --x $V1249
V1250=$i
torchrun pretrain_gpt.py --x $V1250
V1251=$i
torchrun pretrain_gpt.py --x $V1251
V1252=$i
torchrun pretrain_gpt.py --x $V1252
V1253=$i
torchrun pretrain_gpt.py --x $V1253
V1254=$i
torchrun pretrain_gpt.py --x $V1254
V1255=$i
torchrun pretrain_gpt.py --x $V1255
V1256=$i
torchrun pretrain_gpt.py --x $V1256
V1257=$i
torchrun pretrain_gpt.py --x $V1257
V1258=$i
torchrun pretrain_gpt.py --x $V1258
V1259=$i
torchrun pretrain_gpt.py --x $V1259
V1260=$i
torchrun pretrain_gpt.py --x $V1260
V1261=$i
torchrun pretrain_gpt.py --x $V1261
V1262=$i
torchrun pretrain_gpt.py --x $V1262
V1263=$i
torchrun pretrain_gpt.py --x $V1263
V1264=$i
torchrun pretrain_gpt.py --x $V1264
V1265=$i
torchrun pretrain_gpt.py --x $V1265
V1266=$i
torchrun pretrain_gpt.py --x $V1266
V1267=$i
torchrun pretrain_gpt.py --x $V1267
V1268=$i
torchrun pretrain_gpt.py --x $V1268
V1269=$i
torchrun pretrain_gpt.py --x $V1269
V1270=$i
torchrun pretrain_gpt.py --x $V1270
V1271=$i
torchrun pretrain_gpt.py --x $V1271
V1272=$i
torchrun pretrain_gpt.py --x $V1272
V1273=$i
torchrun pretrain_gpt.py --x $V1273
V1274=$i
torchrun pretrain_gpt.py --x $V1274
V1275=$i
torchrun pretrain_gpt.py --x $V1275
V1276=$i
torchrun pretrain_gpt.py --x $V1276
V1277=$i
torchrun pretrain_gpt.py --x $V1277
V1278=$i
torchrun pretrain_gpt.py --x $V1278
V1279=$i
torchrun pretrain_gpt.py --x $V1279
V1280=$i
torchrun pretrain_gpt.py --x $V1280
V1281=$i
torchrun pretrain_gpt.py --x $V1281
V1282=$i
torchrun pretrain_gpt.py --x $V1282
V1283=$i
torchrun pretrain_gpt.py --x $V1283
V1284=$i
torchrun pretrain_gpt.py --x $V1284
V1285=$i
torchrun pretrain_gpt.py --x $V1285
V1286=$i
torchrun pretrain_gpt.py --x $V1286
V1287=$i
torchrun pretrain_gpt.py --x $V1287
V1288=$i
torchrun pretrain_gpt.py --x $V1288
V1289=$i
torchrun pretrain_gpt.py --x $V1289
V1290=$i
torchrun pretrain_gpt.py --x $V1290
V1291=$i
torchrun pretrain_gpt.py --x $V1291
V1292=$i
torchrun pretrain_gpt.py --x $V1292
V1293=$i
torchrun pretrain_gpt.py --x $V1293
V1294=$i
torchrun pretrain_gpt.py --x $V1294
V1295=$i
torchrun pretrain_gpt.py --x $V1295
V1296=$i
torchrun pretrain_gpt.py --x $V1296
V1297=$i
torchrun pretrain_gpt.py --x $V1297
V1298=$i
torchrun pretrain_gpt.py --x $V1298
V1299=$i
torchrun pretrain_gpt.py --x $V1299
V1300=$i
torchrun pretrain_gpt.py --x $V1300
V1301=$i
torchrun pretrain_gpt.py --x $V1301
V1302=$i
torchrun pretrain_gpt.py --x $V1302
V1303=$i
torchrun pretrain_gpt.py --x $V1303
V1304=$i
torchrun pretrain_gpt.py --x $V1304
V1305=$i
torchrun pretrain_gpt.py --x $V1305
V1306=$i
torchrun pretrain_gpt.py --x $V1306
V1307=$i
torchrun pretrain_gpt.py --x $V1307
V1308=$i
torchrun pretrain_gpt.py --x $V1308
V1309=$i
torchrun pretrain_gpt.py --x $V1309
V1310=$i
torchrun pretrain_gpt.py --x $V1310
V1311=$i
torchrun pretrain_gpt.py --x $V1311
V1312=$i
torchrun pretrain_gpt.py --x $V1312
V1313=$i
torchrun pretrain_gpt.py --x $V1313
V1314=$i
torchrun pretrain_gpt.py --x $V1314
V1315=$i
torchrun pretrain_gpt.py --x $V1315
V1316=$i
torchrun pretrain_gpt.py --x $V1316
V1317=$i
torchrun pretrain_gpt.py --x $V1317
V1318=$i
torchrun pretrain_gpt.py --x $V1318
V1319=$i
torchrun pretrain_gpt.py --x $V1319
V1320=$i
torchrun pretrain_gpt.py --x $V1320
V1321=$i
torchrun pretrain_gpt.py --x $V1321
V1322=$i
torchrun pretrain_gpt.py --x $V1322
V1323=$i
torchrun pretrain_gpt.py --x $V1323
V1324=$i
torchrun pretrain_gpt.py --x $V1324
V1325=$i
torchrun pretrain_gpt.py --x $V1325
V1326=$i
torchrun pretrain_gpt.py --x $V1326
V1327=$i
torchrun pretrain_gpt.py --x $V1327
V1328=$i
torchrun pretrain_gpt.py --x $V1328
V1329=$i
torchrun pretrain_gpt.py --x $V1329
V1330=$i
torchrun pretrain_gpt.py --x $V1330
V1331=$i
torchrun pretrain_gpt.py --x $V1331
V1332=$i
torchrun pretrain_gpt.py --x $V1332
V1333=$i
torchrun pretrain_gpt.py --x $V1333
V1334=$i
torchrun pretrain_gpt.py --x $V1334
V1335=$i
torchrun pretrain_gpt.py --x $V1335
V1336=$i
torchrun pretrain_gpt.py --x $V1336
V1337=$i
torchrun pretrain_gpt.py --x $V1337
V1338=$i
torchrun pretrain_gpt.py --x $V1338
V1339=$i
torchrun pretrain_gpt.py --x $V1339
V1340=$i
torchrun pretrain_gpt.py --x $V1340
V1341=$i
torchrun pretrain_gpt.py --x $V1341
V1342=$i
torchrun pretrain_gpt.py --x $V1342
V1343=$i
torchrun pretrain_gpt.py --x $V1343
V1344=$i
torchrun pretrain_gpt.py --x $V1344
V1345=$i
torchrun pretrain_gpt.py --x $V1345
V1346=$i
torchrun pretrain_gpt.py --x $V1346
V1347=$i
torchrun pretrain_gpt.py --x $V1347
V1348=$i
torchrun pretrain_gpt.py --x $V1348
V1349=$i
torchrun pretrain_gpt.py --x $V1349
V1350=$i
torchrun pretrain_gpt.py --x $V1350
V1351=$i
torchrun pretrain_gpt.py --x $V1351
V1352=$i
torchrun pretrain_gpt.py --x $V1352
V1353=$i
torchrun pretrain_gpt.py --x $V1353
V1354=$i
torchrun pretrain_gpt.py --x $V1354
V1355=$i
torchrun pretrain_gpt.py --x $V1355
V1356=$i
torchrun pretrain_gpt.py --x $V1356
V1357=$i
torchrun pretrain_gpt.py --x $V1357
V1358=$i
torchrun pretrain_gpt.py --x $V1358
V1359=$i
torchrun pretrain_gpt.py --x $V1359
V1360=$i
torchrun pretrain_gpt.py --x $V1360
V1361=$i
torchrun pretrain_gpt.py --x $V1361
V1362=$i
torchrun pretrain_gpt.py --x $V1362
V1363=$i
torchrun pretrain_gpt.py --x $V1363
V1364=$i
torchrun pretrain_gpt.py --x $V1364
V1365=$i
torchrun pretrain_gpt.py --x $V1365
V1366=$i
torchrun pretrain_gpt.py --x $V1366
V1367=$i
torchrun pretrain_gpt.py --x $V1367
V1368=$i
torchrun pretrain_gpt.py --x $V1368
V1369=$i
torchrun pretrain_gpt.py --x $V1369
V1370=$i
torchrun pretrain_gpt.py --x $V1370
V1371=$i
torchrun pretrain_gpt.py --x $V1371
V1372=$i
torchrun pretrain_gpt.py --x $V1372
V1373=$i
torchrun pretrain_gpt.py --x $V1373
V1374=$i
torchrun pretrain_gpt.py --x $V1374
V1375=$i
torchrun pretrain_gpt.py --x $V1375
V1376=$i
torchrun pretrain_gpt.py --x $V1376
V1377=$i
torchrun pretrain_gpt.py --x $V1377
V1378=$i
torchrun pretrain_gpt.py --x $V1378
V1379=$i
torchrun pretrain_gpt.py --x $V1379
V1380=$i
torchrun pretrain_gpt.py --x $V1380
V1381=$i
torchrun pretrain_gpt.py --x $V1381
V1382=$i
torchrun pretrain_gpt.py --x $V1382
V1383=$i
torchrun pretrain_gpt.py --x $V1383
V1384=$i
torchrun pretrain_gpt.py --x $V1384
V1385=$i
torchrun pretrain_gpt.py --x $V1385
V1386=$i
torchrun pretrain_gpt.py --x $V1386
V1387=$i
torchrun pretrain_gpt.py --x $V1387
V1388=$i
torchrun pretrain_gpt.py --x $V1388
V1389=$i
torchrun pretrain_gpt.py --x $V1389
V1390=$i
torchrun pretrain_gpt.py --x $V1390
V1391=$i
torchrun pretrain_gpt.py --x $V1391
V1392=$i
torchrun pretrain_gpt.py --x $V1392
V1393=$i
torchrun pretrain_gpt.py --x $V1393
V1394=$i
torchrun pretrain_gpt.py --x $V1394
V1395=$i
torchrun pretrain_gpt.py --x $V1395
V1396=$i
torchrun pretrain_gpt.py --x $V1396
V1397=$i
torchrun pretrain_gpt.py --x $V1397
V1398=$i
torchrun pretrain_gpt.py --x $V1398
V1399=$i
torchrun pretrain_gpt.py --x $V1399
V1400=$i
torchrun pretrain_gpt.py --x $V1400
V1401=$i
torchrun pretrain_gpt.py --x $V1401
V1402=$i
torchrun pretrain_gpt.py --x $V1402
V1403=$i
torchrun pretrain_gpt.py --x $V1403
V1404=$i
torchrun pretrain_gpt.py --x $V1404
V1405=$i
torchrun pretrain_gpt.py --x $V1405
V1406=$i
torchrun pretrain_gpt.py --x $V1406
V1407=$i
torchrun pretrain_gpt.py --x $V1407
V1408=$i
torchrun pretrain_gpt.py --x $V1408
V1409=$i
torchrun pretrain_gpt.py --x $V1409
V1410=$i
torchrun pretrain_gpt.py --x $V1410
V1411=$i
torchrun pretrain_gpt.py --x $V1411
V1412=$i
torchrun pretrain_gpt.py --x $V1412
V1413=$i
torchrun pretrain_gpt.py --x $V1413
V1414=$i
torchrun pretrain_gpt.py --x $V1414
V1415=$i
torchrun pretrain_gpt.py --x $V1415
V1416=$i
torchrun pretrain_gpt.py --x $V1416
V1417=$i
torchrun pretrain_gpt.py --x $V1417
V1418=$i
torchrun pretrain_gpt.py --x $V1418
V1419=$i
torchrun pretrain_gpt.py --x $V1419
V1420=$i
torchrun pretrain_gpt.py --x $V1420
V1421=$i
torchrun pretrain_gpt.py --x $V1421
V1422=$i
torchrun pretrain_gpt.py --x $V1422
V1423=$i
torchrun pretrain_gpt.py --x $V1423
V1424=$i
torchrun pretrain_gpt.py --x $V1424
V1425=$i
torchrun pretrain_gpt.py --x $V1425
V1426=$i
torchrun pretrain_gpt.py --x $V1426
V1427=$i
torchrun pretrain_gpt.py --x $V1427
V1428=$i
torchrun pretrain_gpt.py --x $V1428
V1429=$i
torchrun pretrain_gpt.py --x $V1429
V1430=$i
torchrun pretrain_gpt.py --x $V1430
V1431=$i
torchrun pretrain_gpt.py --x $V1431
V1432=$i
torchrun pretrain_gpt.py --x $V1432
V1433=$i
torchrun pretrain_gpt.py --x $V1433
V1434=$i
torchrun pretrain_gpt.py --x $V1434
V1435=$i
torchrun pretrain_gpt.py --x $V1435
V1436=$i
torchrun pretrain_gpt.py --x $V1436
V1437=$i
torchrun pretrain_gpt.py --x $V1437
V1438=$i
torchrun pretrain_gpt.py --x $V1438
V1439=$i
torchrun pretrain_gpt.py --x $V1439
V1440=$i
torchrun pretrain_gpt.py --x $V1440
V1441=$i
torchrun pretrain_gpt.py --x $V1441
V1442=$i
torchrun pretrain_gpt.py --x $V1442
V1443=$i
torchrun pretrain_gpt.py --x $V1443
V1444=$i
torchrun pretrain_gpt.py --x $V1444
V1445=$i
torchrun pretrain_gpt.py --x $V1445
V1446=$i
torchrun pretrain_gpt.py --x $V1446
V1447=$i
torchrun pretrain_gpt.py --x $V1447
V1448=$i
torchrun pretrain_gpt.py --x $V1448
V1449=$i
torchrun pretrain_gpt.py --x $V1449
V1450=$i
torchrun pretrain_gpt.py --x $V1450
V1451=$i
torchrun pretrain_gpt.py --x $V1451
V1452=$i
torchrun pretrain_gpt.py --x $V1452
V1453=$i
torchrun pretrain_gpt.py --x $V1453
V1454=$i
torchrun pretrain_gpt.py --x $V1454
V1455=$i
torchrun pretrain_gpt.py --x $V1455
V1456=$i
torchrun pretrain_gpt.py --x $V1456
V1457=$i
torchrun pretrain_gpt.py --x $V1457
V1458=$i
torchrun pretrain_gpt.py --x $V1458
V1459=$i
torchrun pretrain_gpt.py --x $V1459
V1460=$i
torchrun pretrain_gpt.py --x $V1460
V1461=$i
torchrun pretrain_gpt.py --x $V1461
V1462=$i
torchrun pretrain_gpt.py --x $V1462
V1463=$i
torchrun pretrain_gpt.py --x $V1463
V1464=$i
torchrun pretrain_gpt.py --x $V1464
V1465=$i
torchrun pretrain_gpt.py --x $V1465
V1466=$i
torchrun pretrain_gpt.py --x $V1466
V1467=$i
torchrun pretrain_gpt.py --x $V1467
V1468=$i
torchrun pretrain_gpt.py --x $V1468
V1469=$i
torchrun pretrain_gpt.py --x $V1469
V1470=$i
torchrun pretrain_gpt.py --x $V1470
V1471=$i
torchrun pretrain_gpt.py --x $V1471
V1472=$i
torchrun pretrain_gpt.py --x $V1472
V1473=$i
torchrun pretrain_gpt.py --x $V1473
V1474=$i
torchrun pretrain_gpt.py --x $V1474
V1475=$i
torchrun pretrain_gpt.py --x $V1475
V1476=$i
torchrun pretrain_gpt.py --x $V1476
V1477=$i
torchrun pretrain_gpt.py --x $V1477
V1478=$i
torchrun pretrain_gpt.py --x $V1478
V1479=$i
torchrun pretrain_gpt.py --x $V1479
V1480=$i
torchrun pretrain_gpt.py --x $V1480
V1481=$i
torchrun pretrain_gpt.py --x $V1481
V1482=$i
torchrun pretrain_gpt.py --x $V1482
V1483=$i
torchrun pretrain_gpt.py --x $V1483
V1484=$i
torchrun pretrain_gpt.py --x $V1484
V1485=$i
torchrun pretrain_gpt.py --x $V1485
V1486=$i
torchrun pretrain_gpt.py --x $V1486
V1487=$i
torchrun pretrain_gpt.py --x $V1487
V1488=$i
torchrun pretrain_gpt.py --x $V1488
V1489=$i
torchrun pretrain_gpt.py --x $V1489
V1490=$i
torchrun pretrain_gpt.py --x $V1490
V1491=$i
torchrun pretrain_gpt.py --x $V1491
V1492=$i
torchrun pretrain_gpt.py --x $V1492
V1493=$i
torchrun pretrain_gpt.py --x $V1493
V1494=$i
torchrun pretrain_gpt.py --x $V1494
V1495=$i
torchrun pretrain_gpt.py --x $V1495
V1496=$i
torchrun pretrain_gpt.py --x $V1496
V1497=$i
torchrun pretrain_gpt.py --x $V1497
V1498=$i
torchrun pretrain_gpt.py --x $V1498
V1499=$i
torchrun pretrain_gpt.py --x $V1499
V1500=$i
torchrun pretrain_gpt.py --x $V1500
V1501=$i
torchrun pretrain_gpt.py --x $V1501
V1502=$i
torchrun pretrain_gpt.py --x $V1502
V1503=$i
torchrun pretrain_gpt.py --x $V1503
V1504=$i
torchrun pretrain_gpt.py --x $V1504
V1505=$i
torchrun pretrain_gpt.py --x $V1505
V1506=$i
torchrun pretrain_gpt.py --x $V1506
V1507=$i
torchrun pretrain_gpt.py --x $V1507
V1508=$i
torchrun pretrain_gpt.py --x $V1508
V1509=$i
torchrun pretrain_gpt.py --x $V1509
V1510=$i
torchrun pretrain_gpt.py --x $V1510
V1511=$i
torchrun pretrain_gpt.py --x $V1511
V1512=$i
torchrun pretrain_gpt.py --x $V1512
V1513=$i
torchrun pretrain_gpt.py --x $V1513
V1514=$i
torchrun pretrain_gpt.py --x $V1514
V1515=$i
torchrun pretrain_gpt.py --x $V1515
V1516=$i
torchrun pretrain_gpt.py --x $V1516
V1517=$i
torchrun pretrain_gpt.py --x $V1517
V1518=$i
torchrun pretrain_gpt.py --x $V1518
V1519=$i
torchrun pretrain_gpt.py --x $V1519
V1520=$i
torchrun pretrain_gpt.py --x $V1520
V1521=$i
torchrun pretrain_gpt.py --x $V1521
V1522=$i
torchrun pretrain_gpt.py --x $V1522
V1523=$i
torchrun pretrain_gpt.py --x $V1523
V1524=$i
torchrun pretrain_gpt.py --x $V1524
V1525=$i
torchrun pretrain_gpt.py --x $V1525
V1526=$i
torchrun pretrain_gpt.py --x $V1526
V1527=$i
torchrun pretrain_gpt.py --x $V1527
V1528=$i
torchrun pretrain_gpt.py --x $V1528
V1529=$i
torchrun pretrain_gpt.py --x $V1529
V1530=$i
torchrun pretrain_gpt.py --x $V1530
V1531=$i
torchrun pretrain_gpt.py --x $V1531
V1532=$i
torchrun pretrain_gpt.py --x $V1532
V1533=$i
torchrun pretrain_gpt.py --x $V1533
V1534=$i
torchrun pretrain_gpt.py --x $V1534
V1535=$i
torchrun pretrain_gpt.py --x $V1535
V1536=$i
torchrun pretrain_gpt.py --x $V1536
V1537=$i
torchrun pretrain_gpt.py --x $V1537
V1538=$i
torchrun pretrain_gpt.py --x $V1538
V1539=$i
torchrun pretrain_gpt.py --x $V1539
V1540=$i
torchrun pretrain_gpt.py --x $V1540
V1541=$i
torchrun pretrain_gpt.py --x $V1541
V1542=$i
torchrun pretrain_gpt.py --x $V1542
V1543=$i
torchrun pretrain_gpt.py --x $V1543
V1544=$i
torchrun pretrain_gpt.py --x $V1544
V1545=$i
torchrun pretrain_gpt.py --x $V1545
V1546=$i
torchrun pretrain_gpt.py --x $V1546
V1547=$i
torchrun pretrain_gpt.py --x $V1547
V1548=$i
torchrun pretrain_gpt.py --x $V1548
V1549=$i
torchrun pretrain_gpt.py --x $V1549
V1550=$i
torchrun pretrain_gpt.py --x $V1550
V1551=$i
torchrun pretrain_gpt.py --x $V1551
V1552=$i
torchrun pretrain_gpt.py --x $V1552
V1553=$i
torchrun pretrain_gpt.py --x $V1553
V1554=$i
torchrun pretrain_gpt.py --x $V1554
V1555=$i
torchrun pretrain_gpt.py --x $V1555
V1556=$i
torchrun pretrain_gpt.py --x $V1556
V1557=$i
torchrun pretrain_gpt.py --x $V1557
V1558=$i
torchrun pretrain_gpt.py --x $V1558
V1559=$i
torchrun pretrain_gpt.py --x $V1559
V1560=$i
torchrun pretrain_gpt.py --x $V1560
V1561=$i
torchrun pretrain_gpt.py --x $V1561
V1562=$i
torchrun pretrain_gpt.py --x $V1562
V1563=$i
torchrun pretrain_gpt.py --x $V1563
V1564=$i
torchrun pretrain_gpt.py --x $V1564
V1565=$i
torchrun pretrain_gpt.py --x $V1565
V1566=$i
torchrun pretrain_gpt.py --x $V1566
V1567=$i
torchrun pretrain_gpt.py --x $V1567
V1568=$i
torchrun pretrain_gpt.py --x $V1568
V1569=$i
torchrun pretrain_gpt.py --x $V1569
V1570=$i
torchrun pretrain_gpt.py --x $V1570
V1571=$i
torchrun pretrain_gpt.py --x $V1571
V1572=$i
torchrun pretrain_gpt.py --x $V1572
V1573=$i
torchrun pretrain_gpt.py --x $V1573
V1574=$i
torchrun pretrain_gpt.py --x $V1574
V1575=$i
torchrun pretrain_gpt.py --x $V1575
V1576=$i
torchrun pretrain_gpt.py --x $V1576
V1577=$i
torchrun pretrain_gpt.py --x $V1577
V1578=$i
torchrun pretrain_gpt.py --x $V1578
V1579=$i
torchrun pretrain_gpt.py --x $V1579
V1580=$i
torchrun pretrain_gpt.py --x $V1580
V1581=$i
torchrun pretrain_gpt.py --x $V1581
V1582=$i
torchrun pretrain_gpt.py --x $V1582
V1583=$i
torchrun pretrain_gpt.py --x $V1583
V1584=$i
torchrun pretrain_gpt.py --x $V1584
V1585=$i
torchrun pretrain_gpt.py --x $V1585
V1586=$i
torchrun pretrain_gpt.py --x $V1586
V1587=$i
torchrun pretrain_gpt.py --x $V1587
V1588=$i
torchrun pretrain_gpt.py --x $V1588
V1589=$i
torchrun pretrain_gpt.py --x $V1589
V1590=$i
torchrun pretrain_gpt.py --x $V1590
V1591=$i
torchrun pretrain_gpt.py --x $V1591
V1592=$i
torchrun pretrain_gpt.py --x $V1592
V1593=$i
torchrun pretrain_gpt.py --x $V1593
V1594=$i
torchrun pretrain_gpt.py --x $V1594
V1595=$i
torchrun pretrain_gpt.py --x $V1595
V1596=$i
torchrun pretrain_gpt.py --x $V1596
V1597=$i
torchrun pretrain_gpt.py --x $V1597
V1598=$i
torchrun pretrain_gpt.py --x $V1598
V1599=$i
torchrun pretrain_gpt.py --x $V1599
V1600=$i
torchrun pretrain_gpt.py --x $V1600
V1601=$i
torchrun pretrain_gpt.py --x $V1601
V1602=$i
torchrun pretrain_gpt.py --x $V1602
V1603=$i
torchrun pretrain_gpt.py --x $V1603
V1604=$i
torchrun pretrain_gpt.py --x $V1604
V1605=$i
torchrun pretrain_gpt.py --x $V1605
V1606=$i
torchrun pretrain_gpt.py --x $V1606
V1607=$i
torchrun pretrain_gpt.py --x $V1607
V1608=$i
torchrun pretrain_gpt.py --x $V1608
V1609=$i
torchrun pretrain_gpt.py --x $V1609
V1610=$i
torchrun pretrain_gpt.py --x $V1610
V1611=$i
torchrun pretrain_gpt.py --x $V1611
V1612=$i
torchrun pretrain_gpt.py --x $V1612
V1613=$i
torchrun pretrain_gpt.py --x $V1613
V1614=$i
torchrun pretrain_gpt.py --x $V1614
V1615=$i
torchrun pretrain_gpt.py --x $V1615
V1616=$i
torchrun pretrain_gpt.py --x $V1616
V1617=$i
torchrun pretrain_gpt.py --x $V1617
V1618=$i
torchrun pretrain_gpt.py --x $V1618
V1619=$i
torchrun pretrain_gpt.py --x $V1619
V1620=$i
torchrun pretrain_gpt.py --x $V1620
V1621=$i
torchrun pretrain_gpt.py --x $V1621
V1622=$i
torchrun pretrain_gpt.py --x $V1622
V1623=$i
torchrun pretrain_gpt.py --x $V1623
V1624=$i
torchrun pretrain_gpt.py --x $V1624
V1625=$i
torchrun pretrain_gpt.py --x $V1625
V1626=$i
torchrun pretrain_gpt.py --x $V1626
V1627=$i
torchrun pretrain_gpt.py --x $V1627
V1628=$i
torchrun pretrain_gpt.py --x $V1628
V1629=$i
torchrun pretrain_gpt.py --x $V1629
V1630=$i
torchrun pretrain_gpt.py --x $V1630
V1631=$i
torchrun pretrain_gpt.py --x $V1631
V1632=$i
torchrun pretrain_gpt.py --x $V1632
V1633=$i
torchrun pretrain_gpt.py --x $V1633
V1634=$i
torchrun pretrain_gpt.py --x $V1634
V1635=$i
torchrun pretrain_gpt.py --x $V1635
V1636=$i
torchrun pretrain_gpt.py --x $V1636
V1637=$i
torchrun pretrain_gpt.py --x $V1637
V1638=$i
torchrun pretrain_gpt.py --x $V1638
V1639=$i
torchrun pretrain_gpt.py --x $V1639
V1640=$i
torchrun pretrain_gpt.py --x $V1640
V1641=$i
torchrun pretrain_gpt.py --x $V1641
V1642=$i
torchrun pretrain_gpt.py --x $V1642
V1643=$i
torchrun pretrain_gpt.py --x $V1643
V1644=$i
torchrun pretrain_gpt.py --x $V1644
V1645=$i
torchrun pretrain_gpt.py --x $V1645
V1646=$i
torchrun pretrain_gpt.py --x $V1646
V1647=$i
torchrun pretrain_gpt.py --x $V1647
V1648=$i
torchrun pretrain_gpt.py --x $V1648
V1649=$i
torchrun pretrain_gpt.py --x $V1649
V1650=$i
torchrun pretrain_gpt.py --x $V1650
V1651=$i
torchrun pretrain_gpt.py --x $V1651
V1652=$i
torchrun pretrain_gpt.py --x $V1652
V1653=$i
torchrun pretrain_gpt.py --x $V1653
V1654=$i
torchrun pretrain_gpt.py --x $V1654
V1655=$i
torchrun pretrain_gpt.py --x $V1655
V1656=$i
torchrun pretrain_gpt.py --x $V1656
V1657=$i
torchrun pretrain_gpt.py --x $V1657
V1658=$i
torchrun pretrain_gpt.py --x $V1658
V1659=$i
torchrun pretrain_gpt.py --x $V1659
V1660=$i
torchrun pretrain_gpt.py --x $V1660
V1661=$i
torchrun pretrain_gpt.py --x $V1661
V1662=$i
torchrun pretrain_gpt.py --x $V1662
V1663=$i
torchrun pretrain_gpt.py --x $V1663
V1664=$i
torchrun pretrain_gpt.py --x $V1664
V1665=$i
torchrun pretrain_gpt.py --x $V1665
V1666=$i
torchrun pretrain_gpt.py --x $V1666
V1667=$i
torchrun pretrain_gpt.py --x $V1667
V1668=$i
torchrun pretrain_gpt.py --x $V1668
V1669=$i
torchrun pretrain_gpt.py --x $V1669
V1670=$i
torchrun pretrain_gpt.py --x $V1670
V1671=$i
torchrun pretrain_gpt.py --x $V1671
V1672=$i
torchrun pretrain_gpt.py --x $V1672
V1673=$i
torchrun pretrain_gpt.py --x $V1673
V1674=$i
torchrun pretrain_gpt.py --x $V1674
V1675=$i
torchrun pretrain_gpt.py --x $V1675
V1676=$i
torchrun pretrain_gpt.py --x $V1676
V1677=$i
torchrun pretrain_gpt.py --x $V1677
V1678=$i
torchrun pretrain_gpt.py --x $V1678
V1679=$i
torchrun pretrain_gpt.py --x $V1679
V1680=$i
torchrun pretrain_gpt.py --x $V1680
V1681=$i
torchrun pretrain_gpt.py --x $V1681
V1682=$i
torchrun pretrain_gpt.py --x $V1682
V1683=$i
torchrun pretrain_gpt.py --x $V1683
V1684=$i
torchrun pretrain_gpt.py --x $V1684
V1685=$i
torchrun pretrain_gpt.py --x $V1685
V1686=$i
torchrun pretrain_gpt.py --x $V1686
V1687=$i
torchrun pretrain_gpt.py --x $V1687
V1688=$i
torchrun pretrain_gpt.py --x $V1688
V1689=$i
torchrun pretrain_gpt.py --x $V1689
V1690=$i
torchrun pretrain_gpt.py --x $V1690
V1691=$i
torchrun pretrain_gpt.py --x $V1691
V1692=$i
torchrun pretrain_gpt.py --x $V1692
V1693=$i
torchrun pretrain_gpt.py --x $V1693
V1694=$i
torchrun pretrain_gpt.py --x $V1694
V1695=$i
torchrun pretrain_gpt.py --x $V1695
V1696=$i
torchrun pretrain_gpt.py --x $V1696
V1697=$i
torchrun pretrain_gpt.py --x $V1697
V1698=$i
torchrun pretrain_gpt.py --x $V1698
V1699=$i
torchrun pretrain_gpt.py --x $V1699
V1700=$i
torchrun pretrain_gpt.py --x $V1700
V1701=$i
torchrun pretrain_gpt.py --x $V1701
V1702=$i
torchrun pretrain_gpt.py --x $V1702
V1703=$i
torchrun pretrain_gpt.py --x $V1703
V1704=$i
torchrun pretrain_gpt.py --x $V1704
V1705=$i
torchrun pretrain_gpt.py --x $V1705
V1706=$i
torchrun pretrain_gpt.py --x $V1706
V1707=$i
torchrun pretrain_gpt.py --x $V1707
V1708=$i
torchrun pretrain_gpt.py --x $V1708
V1709=$i
torchrun pretrain_gpt.py --x $V1709
V1710=$i
torchrun pretrain_gpt.py --x $V1710
V1711=$i
torchrun pretrain_gpt.py --x $V1711
V1712=$i
torchrun pretrain_gpt.py --x $V1712
V1713=$i
torchrun pretrain_gpt.py --x $V1713
V1714=$i
torchrun pretrain_gpt.py --x $V1714
V1715=$i
torchrun pretrain_gpt.py --x $V1715
V1716=$i
torchrun pretrain_gpt.py --x $V1716
V1717=$i
torchrun pretrain_gpt.py --x $V1717
V1718=$i
torchrun pretrain_gpt.py --x $V1718
V1719=$i
torchrun pretrain_gpt.py --x $V1719
V1720=$i
torchrun pretrain_gpt.py --x $V1720
V1721=$i
torchrun pretrain_gpt.py --x $V1721
V1722=$i
torchrun pretrain_gpt.py --x $V1722
V1723=$i
torchrun pretrain_gpt.py --x $V1723
V1724=$i
torchrun pretrain_gpt.py --x $V1724
V1725=$i
torchrun pretrain_gpt.py --x $V1725
V1726=$i
torchrun pretrain_gpt.py --x $V1726
V1727=$i
torchrun pretrain_gpt.py --x $V1727
V1728=$i
torchrun pretrain_gpt.py --x $V1728
V1729=$i
torchrun pretrain_gpt.py --x $V1729
V1730=$i
torchrun pretrain_gpt.py --x $V1730
V1731=$i
torchrun pretrain_gpt.py --x $V1731
V1732=$i
torchrun pretrain_gpt.py --x $V1732
V1733=$i
torchrun pretrain_gpt.py --x $V1733
V1734=$i
torchrun pretrain_gpt.py --x $V1734
V1735=$i
torchrun pretrain_gpt.py --x $V1735
V1736=$i
torchrun pretrain_gpt.py --x $V1736
V1737=$i
torchrun pretrain_gpt.py --x $V1737
V1738=$i
torchrun pretrain_gpt.py --x $V1738
V1739=$i
torchrun pretrain_gpt.py --x $V1739
V1740=$i
torchrun pretrain_gpt.py --x $V1740
V1741=$i
torchrun pretrain_gpt.py --x $V1741
V1742=$i
torchrun pretrain_gpt.py --x $V1742
V1743=$i
torchrun pretrain_gpt.py --x $V1743
V1744=$i
torchrun pretrain_gpt.py --x $V1744
V1745=$i
torchrun pretrain_gpt.py --x $V1745
V1746=$i
torchrun pretrain_gpt.py --x $V1746
V1747=$i
torchrun pretrain_gpt.py --x $V1747
V1748=$i
torchrun pretrain_gpt.py --x $V1748
V1749=$i
torchrun pretrain_gpt.py --x $V1749
V1750=$i
torchrun pretrain_gpt.py --x $V1750
V1751=$i
torchrun pretrain_gpt.py --x $V1751
V1752=$i
torchrun pretrain_gpt.py --x $V1752
V1753=$i
torchrun pretrain_gpt.py --x $V1753
V1754=$i
torchrun pretrain_gpt.py --x $V1754
V1755=$i
torchrun pretrain_gpt.py --x $V1755
V1756=$i
torchrun pretrain_gpt.py --x $V1756
V1757=$i
torchrun pretrain_gpt.py --x $V1757
V1758=$i
torchrun pretrain_gpt.py --x $V1758
V1759=$i
torchrun pretrain_gpt.py --x $V1759
V1760=$i
torchrun pretrain_gpt.py --x $V1760
V1761=$i
torchrun pretrain_gpt.py --x $V1761
V1762=$i
torchrun pretrain_gpt.py --x $V1762
V1763=$i
torchrun pretrain_gpt.py --x $V1763
V1764=$i
torchrun pretrain_gpt.py --x $V1764
V1765=$i
torchrun pretrain_gpt.py --x $V1765
V1766=$i
torchrun pretrain_gpt.py --x $V1766
V1767=$i
torchrun pretrain_gpt.py --x $V1767
V1768=$i
torchrun pretrain_gpt.py --x $V1768
V1769=$i
torchrun pretrain_gpt.py --x $V1769
V1770=$i
torchrun pretrain_gpt.py --x $V1770
V1771=$i
torchrun pretrain_gpt.py --x $V1771
V1772=$i
torchrun pretrain_gpt.py --x $V1772
V1773=$i
torchrun pretrain_gpt.py --x $V1773
V1774=$i
torchrun pretrain_gpt.py --x $V1774
V1775=$i
torchrun pretrain_gpt.py --x $V1775
V1776=$i
torchrun pretrain_gpt.py --x $V1776
V1777=$i
torchrun pretrain_gpt.py --x $V1777
V1778=$i
torchrun pretrain_gpt.py --x $V1778
V1779=$i
torchrun pretrain_gpt.py --x $V1779
V1780=$i
torchrun pretrain_gpt.py --x $V1780
V1781=$i
torchrun pretrain_gpt.py --x $V1781
V1782=$i
torchrun pretrain_gpt.py --x $V1782
V1783=$i
torchrun pretrain_gpt.py --x $V1783
V1784=$i
torchrun pretrain_gpt.py --x $V1784
V1785=$i
torchrun pretrain_gpt.py --x $V1785
V1786=$i
torchrun pretrain_gpt.py --x $V1786
V1787=$i
torchrun pretrain_gpt.py --x $V1787
V1788=$i
torchrun pretrain_gpt.py --x $V1788
V1789=$i
torchrun pretrain_gpt.py --x $V1789
V1790=$i
torchrun pretrain_gpt.py --x $V1790
V1791=$i
torchrun pretrain_gpt.py --x $V1791
V1792=$i
torchrun pretrain_gpt.py --x $V1792
V1793=$i
torchrun pretrain_gpt.py --x $V1793
V1794=$i
torchrun pretrain_gpt.py --x $V1794
V1795=$i
torchrun pretrain_gpt.py --x $V1795
V1796=$i
torchrun pretrain_gpt.py --x $V1796
V1797=$i
torchrun pretrain_gpt.py --x $V1797
V1798=$i
torchrun pretrain_gpt.py --x $V1798
V1799=$i
torchrun pretrain_gpt.py --x $V1799
V1800=$i
torchrun pretrain_gpt.py --x $V1800
V1801=$i
torchrun pretrain_gpt.py --x $V1801
V1802=$i
torchrun pretrain_gpt.py --x $V1802
V1803=$i
torchrun pretrain_gpt.py --x $V1803
V1804=$i
torchrun pretrain_gpt.py --x $V1804
V1805=$i
torchrun pretrain_gpt.py --x $V1805
V1806=$i
torchrun pretrain_gpt.py --x $V1806
V1807=$i
torchrun pretrain_gpt.py --x $V1807
V1808=$i
torchrun pretrain_gpt.py --x $V1808
V1809=$i
torchrun pretrain_gpt.py --x $V1809
V1810=$i
torchrun pretrain_gpt.py --x $V1810
V1811=$i
torchrun pretrain_gpt.py --x $V1811
V1812=$i
torchrun pretrain_gpt.py --x $V1812
V1813=$i
torchrun pretrain_gpt.py --x $V1813
V1814=$i
torchrun pretrain_gpt.py --x $V1814
V1815=$i
torchrun pretrain_gpt.py --x $V1815
V1816=$i
torchrun pretrain_gpt.py --x $V1816
V1817=$i
torchrun pretrain_gpt.py --x $V1817
V1818=$i
torchrun pretrain_gpt.py --x $V1818
V1819=$i
torchrun pretrain_gpt.py --x $V1819
V1820=$i
torchrun pretrain_gpt.py --x $V1820
V1821=$i
torchrun pretrain_gpt.py --x $V1821
V1822=$i
torchrun pretrain_gpt.py --x $V1822
V1823=$i
torchrun pretrain_gpt.py --x $V1823
V1824=$i
torchrun pretrain_gpt.py --x $V1824
V1825=$i
torchrun pretrain_gpt.py --x $V1825
V1826=$i
torchrun pretrain_gpt.py --x $V1826
V1827=$i
torchrun pretrain_gpt.py --x $V1827
V1828=$i
torchrun pretrain_gpt.py --x $V1828
V1829=$i
torchrun pretrain_gpt.py --x $V1829
V1830=$i
torchrun pretrain_gpt.py --x $V1830
V1831=$i
torchrun pretrain_gpt.py --x $V1831
V1832=$i
torchrun pretrain_gpt.py --x $V1832
V1833=$i
torchrun pretrain_gpt.py --x $V1833
V1834=$i
torchrun pretrain_gpt.py --x $V1834
V1835=$i
torchrun pretrain_gpt.py --x $V1835
V1836=$i
torchrun pretrain_gpt.py --x $V1836
V1837=$i
torchrun pretrain_gpt.py --x $V1837
V1838=$i
torchrun pretrain_gpt.py --x $V1838
V1839=$i
torchrun pretrain_gpt.py --x $V1839
V1840=$i
torchrun pretrain_gpt.py --x $V1840
V1841=$i
torchrun pretrain_gpt.py --x $V1841
V1842=$i
torchrun pretrain_gpt.py --x $V1842
V1843=$i
torchrun pretrain_gpt.py --x $V1843
V1844=$i
torchrun pretrain_gpt.py --x $V1844
V1845=$i
torchrun pretrain_gpt.py --x $V1845
V1846=$i
torchrun pretrain_gpt.py --x $V1846
V1847=$i
torchrun pretrain_gpt.py --x $V1847
V1848=$i
torchrun pretrain_gpt.py --x $V1848
V1849=$i
torchrun pretrain_gpt.py --x $V1849
V1850=$i
torchrun pretrain_gpt.py --x $V1850
V1851=$i
torchrun pretrain_gpt.py --x $V1851
V1852=$i
torchrun pretrain_gpt.py --x $V1852
V1853=$i
torchrun pretrain_gpt.py --x $V1853
V1854=$i
torchrun pretrain_gpt.py --x $V1854
V1855=$i
torchrun pretrain_gpt.py --x $V1855
V1856=$i
torchrun pretrain_gpt.py --x $V1856
V1857=$i
torchrun pretrain_gpt.py --x $V1857
V1858=$i
torchrun pretrain_gpt.py --x $V1858
V1859=$i
torchrun pretrain_gpt.py --x $V1859
V1860=$i
torchrun pretrain_gpt.py --x $V1860
V1861=$i
torchrun pretrain_gpt.py --x $V1861
V1862=$i
torchrun pretrain_gpt.py --x $V1862
V1863=$i
torchrun pretrain_gpt.py --x $V1863
V1864=$i
torchrun pretrain_gpt.py --x $V1864
V1865=$i
torchrun pretrain_gpt.py --x $V1865
V1866=$i
torchrun pretrain_gpt.py --x $V1866
V1867=$i
torchrun pretrain_gpt.py --x $V1867
V1868=$i
torchrun pretrain_gpt.py --x $V1868
V1869=$i
torchrun pretrain_gpt.py --x $V1869
V1870=$i
torchrun pretrain_gpt.py --x $V1870
V1871=$i
torchrun pretrain_gpt.py --x $V1871
V1872=$i
torchrun pretrain_gpt.py --x $V1872
V1873=$i
torchrun pretrain_gpt.py --x $V1873
V1874=$i
torchrun pretrain_gpt.py --x $V1874
V1875=$i
torchrun pretrain_gpt.py --x $V1875
V1876=$i
torchrun pretrain_gpt.py --x $V1876
V1877=$i
torchrun pretrain_gpt.py --x $V1877
V1878=$i
torchrun pretrain_gpt.py --x $V1878
V1879=$i
torchrun pretrain_gpt.py --x $V1879
V1880=$i
torchrun pretrain_gpt.py --x $V1880
V1881=$i
torchrun pretrain_gpt.py --x $V1881
V1882=$i
torchrun pretrain_gpt.py --x $V1882
V1883=$i
torchrun pretrain_gpt.py --x $V1883
V1884=$i
torchrun pretrain_gpt.py --x $V1884
V1885=$i
torchrun pretrain_gpt.py --x $V1885
V1886=$i
torchrun pretrain_gpt.py --x $V1886
V1887=$i
torchrun pretrain_gpt.py --x $V1887
V1888=$i
torchrun pretrain_gpt.py --x $V1888
V1889=$i
torchrun pretrain_gpt.py --x $V1889
V1890=$i
torchrun pretrain_gpt.py --x $V1890
V1891=$i
torchrun pretrain_gpt.py --x $V1891
V1892=$i
torchrun pretrain_gpt.py --x $V1892
V1893=$i
torchrun pretrain_gpt.py --x $V1893
V1894=$i
torchrun pretrain_gpt.py --x $V1894
V1895=$i
torchrun pretrain_gpt.py --x $V1895
V1896=$i
torchrun pretrain_gpt.py --x $V1896
V1897=$i
torchrun pretrain_gpt.py --x $V1897
V1898=$i
torchrun pretrain_gpt.py --x $V1898
V1899=$i
torchrun pretrain_gpt.py --x $V1899
V1900=$i
torchrun pretrain_gpt.py --x $V1900
V1901=$i
torchrun pretrain_gpt.py --x $V1901
V1902=$i
torchrun pretrain_gpt.py --x $V1902
V1903=$i
torchrun pretrain_gpt.py --x $V1903
V1904=$i
torchrun pretrain_gpt.py --x $V1904
V1905=$i
torchrun pretrain_gpt.py --x $V1905
V1906=$i
torchrun pretrain_gpt.py --x $V1906
V1907=$i
torchrun pretrain_gpt.py --x $V1907
V1908=$i
torchrun pretrain_gpt.py --x $V1908
V1909=$i
torchrun pretrain_gpt.py --x $V1909
V1910=$i
torchrun pretrain_gpt.py --x $V1910
V1911=$i
torchrun pretrain_gpt.py --x $V1911
V1912=$i
torchrun pretrain_gpt.py --x $V1912
V1913=$i
torchrun pretrain_gpt.py --x $V1913
V1914=$i
torchrun pretrain_gpt.py --x $V1914
V1915=$i
torchrun pretrain_gpt.py --x $V1915
V1916=$i
torchrun pretrain_gpt.py --x $V1916
V1917=$i
torchrun pretrain_gpt.py --x $V1917
V1918=$i
torchrun pretrain_gpt.py --x $V1918
V1919=$i
torchrun pretrain_gpt.py --x $V1919
V1920=$i
torchrun pretrain_gpt.py --x $V1920
V1921=$i
torchrun pretrain_gpt.py --x $V1921
V1922=$i
torchrun pretrain_gpt.py --x $V1922
V1923=$i
torchrun pretrain_gpt.py --x $V1923
V1924=$i
torchrun pretrain_gpt.py --x $V1924
V1925=$i
torchrun pretrain_gpt.py --x $V1925
V1926=$i
torchrun pretrain_gpt.py --x $V1926
V1927=$i
torchrun pretrain_gpt.py --x $V1927
V1928=$i
torchrun pretrain_gpt.py --x $V1928
V1929=$i
torchrun pretrain_gpt.py --x $V1929
V1930=$i
torchrun pretrain_gpt.py --x $V1930
V1931=$i
torchrun pretrain_gpt.py --x $V1931
V1932=$i
torchrun pretrain_gpt.py --x $V1932
V1933=$i
torchrun pretrain_gpt.py --x $V1933
V1934=$i
torchrun pretrain_gpt.py --x $V1934
V1935=$i
torchrun pretrain_gpt.py --x $V1935
V1936=$i
torchrun pretrain_gpt.py --x $V1936
V1937=$i
torchrun pretrain_gpt.py --x $V1937
V1938=$i
torchrun pretrain_gpt.py --x $V1938
V1939=$i
torchrun pretrain_gpt.py --x $V1939
V1940=$i
torchrun pretrain_gpt.py --x $V1940
V1941=$i
torchrun pretrain_gpt.py --x $V1941
V1942=$i
torchrun pretrain_gpt.py --x $V1942
V1943=$i
torchrun pretrain_gpt.py --x $V1943
V1944=$i
torchrun pretrain_gpt.py --x $V1944
V1945=$i
torchrun pretrain_gpt.py --x $V1945
V1946=$i
torchrun pretrain_gpt.py --x $V1946
V1947=$i
torchrun pretrain_gpt.py --x $V1947
V1948=$i
torchrun pretrain_gpt.py --x $V1948
V1949=$i
torchrun pretrain_gpt.py --x $V1949
V1950=$i
torchrun pretrain_gpt.py --x $V1950
V1951=$i
torchrun pretrain_gpt.py --x $V1951
V1952=$i
torchrun pretrain_gpt.py --x $V1952
V1953=$i
torchrun pretrain_gpt.py --x $V1953
V1954=$i
torchrun pretrain_gpt.py --x $V1954
V1955=$i
torchrun pretrain_gpt.py --x $V1955
V1956=$i
torchrun pretrain_gpt.py --x $V1956
V1957=$i
torchrun pretrain_gpt.py --x $V1957
V1958=$i
torchrun pretrain_gpt.py --x $V1958
V1959=$i
torchrun pretrain_gpt.py --x $V1959
V1960=$i
torchrun pretrain_gpt.py --x $V1960
V1961=$i
torchrun pretrain_gpt.py --x $V1961
V1962=$i
torchrun pretrain_gpt.py --x $V1962
V1963=$i
torchrun pretrain_gpt.py --x $V1963
V1964=$i
torchrun pretrain_gpt.py --x $V1964
V1965=$i
torchrun pretrain_gpt.py --x $V1965
V1966=$i
torchrun pretrain_gpt.py --x $V1966
V1967=$i
torchrun pretrain_gpt.py --x $V1967
V1968=$i
torchrun pretrain_gpt.py --x $V1968
V1969=$i
torchrun pretrain_gpt.py --x $V1969
V1970=$i
torchrun pretrain_gpt.py --x $V1970
V1971=$i
torchrun pretrain_gpt.py --x $V1971
V1972=$i
torchrun pretrain_gpt.py --x $V1972
V1973=$i
torchrun pretrain_gpt.py --x $V1973
V1974=$i
torchrun pretrain_gpt.py --x $V1974
V1975=$i
torchrun pretrain_gpt.py --x $V1975
V1976=$i
torchrun pretrain_gpt.py --x $V1976
V1977=$i
torchrun pretrain_gpt.py --x $V1977
V1978=$i
torchrun pretrain_gpt.py --x $V1978
V1979=$i
torchrun pretrain_gpt.py --x $V1979
V1980=$i
torchrun pretrain_gpt.py --x $V1980
V1981=$i
torchrun pretrain_gpt.py --x $V1981
V1982=$i
torchrun pretrain_gpt.py --x $V1982
V1983=$i
torchrun pretrain_gpt.py --x $V1983
V1984=$i
torchrun pretrain_gpt.py --x $V1984
V1985=$i
torchrun pretrain_gpt.py --x $V1985
V1986=$i
torchrun pretrain_gpt.py --x $V1986
V1987=$i
torchrun pretrain_gpt.py --x $V1987
V1988=$i
torchrun pretrain_gpt.py --x $V1988
V1989=$i
torchrun pretrain_gpt.py --x $V1989
V1990=$i
torchrun pretrain_gpt.py --x $V1990
V1991=$i
torchrun pretrain_gpt.py --x $V1991
V1992=$i
torchrun pretrain_gpt.py --x $V1992
V1993=$i
torchrun pretrain_gpt.py --x $V1993
V1994=$i
torchrun pretrain_gpt.py --x $V1994
V1995=$i
torchrun pretrain_gpt.py --x $V1995
V1996=$i
torchrun pretrain_gpt.py --x $V1996
V1997=$i
torchrun pretrain_gpt.py --x $V1997
V1998=$i
torchrun pretrain_gpt.py --x $V1998
V1999=$i
torchrun pretrain_gpt.py --x $V1999
V2000=$i
torchrun pretrain_gpt.py --x $V2000
V2001=$i
torchrun pretrain_gpt.py --x $V2001
V2002=$i
torchrun pretrain_gpt.py --x $V2002
V2003=$i
torchrun pretrain_gpt.py --x $V2003
V2004=$i
torchrun pretrain_gpt.py --x $V2004
V2005=$i
torchrun pretrain_gpt.py --x $V2005
V2006=$i
torchrun pretrain_gpt.py --x $V2006
V2007=$i
torchrun pretrain_gpt.py --x $V2007
V2008=$i
torchrun pretrain_gpt.py --x $V2008
V2009=$i
torchrun pretrain_gpt.py --x $V2009
V2010=$i
torchrun pretrain_gpt.py --x $V2010
V2011=$i
torchrun pretrain_gpt.py --x $V2011
V2012=$i
torchrun pretrain_gpt.py --x $V2012
V2013=$i
torchrun pretrain_gpt.py --x $V2013
V2014=$i
torchrun pretrain_gpt.py --x $V2014
V2015=$i
torchrun pretrain_gpt.py --x $V2015
V2016=$i
torchrun pretrain_gpt.py --x $V2016
V2017=$i
torchrun pretrain_gpt.py --x $V2017
V2018=$i
torchrun pretrain_gpt.py --x $V2018
V2019=$i
torchrun pretrain_gpt.py --x $V2019
V2020=$i
torchrun pretrain_gpt.py --x $V2020
V2021=$i
torchrun pretrain_gpt.py --x $V2021
V2022=$i
torchrun pretrain_gpt.py --x $V2022
V2023=$i
torchrun pretrain_gpt.py --x $V2023
V2024=$i
torchrun pretrain_gpt.py --x $V2024
V2025=$i
torchrun pretrain_gpt.py --x $V2025
V2026=$i
torchrun pretrain_gpt.py --x $V2026
V2027=$i
torchrun pretrain_gpt.py --x $V2027
V2028=$i
torchrun pretrain_gpt.py --x $V2028
V2029=$i
torchrun pretrain_gpt.py --x $V2029
V2030=$i
torchrun pretrain_gpt.py --x $V2030
V2031=$i
torchrun pretrain_gpt.py --x $V2031
V2032=$i
torchrun pretrain_gpt.py --x $V2032
V2033=$i
torchrun pretrain_gpt.py --x $V2033
V2034=$i
torchrun pretrain_gpt.py --x $V2034
V2035=$i
torchrun pretrain_gpt.py --x $V2035
V2036=$i
torchrun pretrain_gpt.py --x $V2036
V2037=$i
torchrun pretrain_gpt.py --x $V2037
V2038=$i
torchrun pretrain_gpt.py --x $V2038
V2039=$i
torchrun pretrain_gpt.py --x $V2039
V2040=$i
torchrun pretrain_gpt.py --x $V2040
V2041=$i
torchrun pretrain_gpt.py --x $V2041
V2042=$i
torchrun pretrain_gpt.py --x $V2042
V2043=$i
torchrun pretrain_gpt.py --x $V2043
V2044=$i
torchrun pretrain_gpt.py --x $V2044
V2045=$i
torchrun pretrain_gpt.py --x $V2045
V2046=$i
torchrun pretrain_gpt.py --x $V2046
V2047=$i
torchrun pretrain_gpt.py --x $V2047
V2048=$i
torchrun pretrain_gpt.py --x $V2048
V2049=$i
torchrun pretrain_gpt.py --x $V2049
V2050=$i
torchrun pretrain_gpt.py --x $V2050
V2051=$i
torchrun pretrain_gpt.py --x $V2051
V2052=$i
torchrun pretrain_gpt.py --x $V2052
V2053=$i
torchrun pretrain_gpt.py --x $V2053
V2054=$i
torchrun pretrain_gpt.py --x $V2054
V2055=$i
torchrun pretrain_gpt.py --x $V2055
V2056=$i
torchrun pretrain_gpt.py --x $V2056
V2057=$i
torchrun pretrain_gpt.py --x $V2057
V2058=$i
torchrun pretrain_gpt.py --x $V2058
V2059=$i
torchrun pretrain_gpt.py --x $V2059
V2060=$i
torchrun pretrain_gpt.py --x $V2060
V2061=$i
torchrun pretrain_gpt.py --x $V2061
V2062=$i
torchrun pretrain_gpt.py --x $V2062
V2063=$i
torchrun pretrain_gpt.py --x $V2063
V2064=$i
torchrun pretrain_gpt.py --x $V2064
V2065=$i
torchrun pretrain_gpt.py --x $V2065
V2066=$i
torchrun pretrain_gpt.py --x $V2066
V2067=$i
torchrun pretrain_gpt.py --x $V2067
V2068=$i
torchrun pretrain_gpt.py --x $V2068
V2069=$i
torchrun pretrain_gpt.py --x $V2069
V2070=$i
torchrun pretrain_gpt.py --x $V2070
V2071=$i
torchrun pretrain_gpt.py --x $V2071
V2072=$i
torchrun pretrain_gpt.py --x $V2072
V2073=$i
torchrun pretrain_gpt.py --x $V2073
V2074=$i
torchrun pretrain_gpt.py --x $V2074
V2075=$i
torchrun pretrain_gpt.py --x $V2075
V2076=$i
torchrun pretrain_gpt.py --x $V2076
V2077=$i
torchrun pretrain_gpt.py --x $V2077
V2078=$i
torchrun pretrain_gpt.py --x $V2078
V2079=$i
torchrun pretrain_gpt.py --x $V2079
V2080=$i
torchrun pretrain_gpt.py --x $V2080
V2081=$i
torchrun pretrain_gpt.py --x $V2081
V2082=$i
torchrun pretrain_gpt.py --x $V2082
V2083=$i
torchrun pretrain_gpt.py --x $V2083
V2084=$i
torchrun pretrain_gpt.py --x $V2084
V2085=$i
torchrun pretrain_gpt.py --x $V2085
V2086=$i
torchrun pretrain_gpt.py --x $V2086
V2087=$i
torchrun pretrain_gpt.py --x $V2087
V2088=$i
torchrun pretrain_gpt.py --x $V2088
V2089=$i
torchrun pretrain_gpt.py --x $V2089
V2090=$i
torchrun pretrain_gpt.py --x $V2090
V2091=$i
torchrun pretrain_gpt.py --x $V2091
V2092=$i
torchrun pretrain_gpt.py --x $V2092
V2093=$i
torchrun pretrain_gpt.py --x $V2093
V2094=$i
torchrun pretrain_gpt.py --x $V2094
V2095=$i
torchrun pretrain_gpt.py --x $V2095
V2096=$i
torchrun pretrain_gpt.py --x $V2096
V2097=$i
torchrun pretrain_gpt.py --x $V2097
V2098=$i
torchrun pretrain_gpt.py --x $V2098
V2099=$i
torchrun pretrain_gpt.py --x $V2099
V2100=$i
torchrun pretrain_gpt.py --x $V2100
V2101=$i
torchrun pretrain_gpt.py --x $V2101
V2102=$i
torchrun pretrain_gpt.py --x $V2102
V2103=$i
torchrun pretrain_gpt.py --x $V2103
V2104=$i
torchrun pretrain_gpt.py --x $V2104
V2105=$i
torchrun pretrain_gpt.py --x $V2105
V2106=$i
torchrun pretrain_gpt.py --x $V2106
V2107=$i
torchrun pretrain_gpt.py --x $V2107
V2108=$i
torchrun pretrain_gpt.py --x $V2108
V2109=$i
torchrun pretrain_gpt.py --x $V2109
V2110=$i
torchrun pretrain_gpt.py --x $V2110
V2111=$i
torchrun pretrain_gpt.py --x $V2111
V2112=$i
torchrun pretrain_gpt.py --x $V2112
V2113=$i
torchrun pretrain_gpt.py --x $V2113
V2114=$i
torchrun pretrain_gpt.py --x $V2114
V2115=$i
torchrun pretrain_gpt.py --x $V2115
V2116=$i
torchrun pretrain_gpt.py --x $V2116
V2117=$i
torchrun pretrain_gpt.py --x $V2117
V2118=$i
torchrun pretrain_gpt.py --x $V2118
V2119=$i
torchrun pretrain_gpt.py --x $V2119
V2120=$i
torchrun pretrain_gpt.py --x $V2120
V2121=$i
torchrun pretrain_gpt.py --x $V2121
V2122=$i
torchrun pretrain_gpt.py --x $V2122
V2123=$i
torchrun pretrain_gpt.py --x $V2123
V2124=$i
torchrun pretrain_gpt.py --x $V2124
V2125=$i
torchrun pretrain_gpt.py --x $V2125
V2126=$i
torchrun pretrain_gpt.py --x $V2126
V2127=$i
torchrun pretrain_gpt.py --x $V2127
V2128=$i
torchrun pretrain_gpt.py --x $V2128
V2129=$i
torchrun pretrain_gpt.py --x $V2129
V2130=$i
torchrun pretrain_gpt.py --x $V2130
V2131=$i
torchrun pretrain_gpt.py --x $V2131
V2132=$i
torchrun pretrain_gpt.py --x $V2132
V2133=$i
torchrun pretrain_gpt.py --x $V2133
V2134=$i
torchrun pretrain_gpt.py --x $V2134
V2135=$i
torchrun pretrain_gpt.py --x $V2135
V2136=$i
torchrun pretrain_gpt.py --x $V2136
V2137=$i
torchrun pretrain_gpt.py --x $V2137
V2138=$i
torchrun pretrain_gpt.py --x $V2138
V2139=$i
torchrun pretrain_gpt.py --x $V2139
V2140=$i
torchrun pretrain_gpt.py --x $V2140
V2141=$i
torchrun pretrain_gpt.py --x $V2141
V2142=$i
torchrun pretrain_gpt.py --x $V2142
V2143=$i
torchrun pretrain_gpt.py --x $V2143
V2144=$i
torchrun pretrain_gpt.py --x $V2144
V2145=$i
torchrun pretrain_gpt.py --x $V2145
V2146=$i
torchrun pretrain_gpt.py --x $V2146
V2147=$i
torchrun pretrain_gpt.py --x $V2147
V2148=$i
torchrun pretrain_gpt.py --x $V2148
V2149=$i
torchrun pretrain_gpt.py --x $V2149
V2150=$i
torchrun pretrain_gpt.py --x $V2150
V2151=$i
torchrun pretrain_gpt.py --x $V2151
V2152=$i
torchrun pretrain_gpt.py --x $V2152
V2153=$i
torchrun pretrain_gpt.py --x $V2153
V2154=$i
torchrun pretrain_gpt.py --x $V2154
V2155=$i
torchrun pretrain_gpt.py --x $V2155
V2156=$i
torchrun pretrain_gpt.py --x $V2156
V2157=$i
torchrun pretrain_gpt.py --x $V2157
V2158=$i
torchrun pretrain_gpt.py --x $V2158
V2159=$i
torchrun pretrain_gpt.py --x $V2159
V2160=$i
torchrun pretrain_gpt.py --x $V2160
V2161=$i
torchrun pretrain_gpt.py --x $V2161
V2162=$i
torchrun pretrain_gpt.py --x $V2162
V2163=$i
torchrun pretrain_gpt.py --x $V2163
V2164=$i
torchrun pretrain_gpt.py --x $V2164
V2165=$i
torchrun pretrain_gpt.py --x $V2165
V2166=$i
torchrun pretrain_gpt.py --x $V2166
V2167=$i
torchrun pretrain_gpt.py --x $V2167
V2168=$i
torchrun pretrain_gpt.py --x $V2168
V2169=$i
torchrun pretrain_gpt.py --x $V2169
V2170=$i
torchrun pretrain_gpt.py --x $V2170
V2171=$i
torchrun pretrain_gpt.py --x $V2171
V2172=$i
torchrun pretrain_gpt.py --x $V2172
V2173=$i
torchrun pretrain_gpt.py --x $V2173
V2174=$i
torchrun pretrain_gpt.py --x $V2174
V2175=$i
torchrun pretrain_gpt.py --x $V2175
V2176=$i
torchrun pretrain_gpt.py --x $V2176
V2177=$i
torchrun pretrain_gpt.py --x $V2177
V2178=$i
torchrun pretrain_gpt.py --x $V2178
V2179=$i
torchrun pretrain_gpt.py --x $V2179
V2180=$i
torchrun pretrain_gpt.py --x $V2180
V2181=$i
torchrun pretrain_gpt.py --x $V2181
V2182=$i
torchrun pretrain_gpt.py --x $V2182
V2183=$i
torchrun pretrain_gpt.py --x $V2183
V2184=$i
torchrun pretrain_gpt.py --x $V2184
V2185=$i
torchrun pretrain_gpt.py --x $V2185
V2186=$i
torchrun pretrain_gpt.py --x $V2186
V2187=$i
torchrun pretrain_gpt.py --x $V2187
V2188=$i
torchrun pretrain_gpt.py --x $V2188
V2189=$i
torchrun pretrain_gpt.py --x $V2189
V2190=$i
torchrun pretrain_gpt.py --x $V2190
V2191=$i
torchrun pretrain_gpt.py --x $V2191
V2192=$i
torchrun pretrain_gpt.py --x $V2192
V2193=$i
torchrun pretrain_gpt.py --x $V2193
V2194=$i
torchrun pretrain_gpt.py --x $V2194
V2195=$i
torchrun pretrain_gpt.py --x $V2195
V2196=$i
torchrun pretrain_gpt.py --x $V2196
V2197=$i
torchrun pretrain_gpt.py --x $V2197
V2198=$i
torchrun pretrain_gpt.py --x $V2198
V2199=$i
torchrun pretrain_gpt.py --x $V2199
V2200=$i
torchrun pretrain_gpt.py --x $V2200
V2201=$i
torchrun pretrain_gpt.py --x $V2201
V2202=$i
torchrun pretrain_gpt.py --x $V2202
V2203=$i
torchrun pretrain_gpt.py --x $V2203
V2204=$i
torchrun pretrain_gpt.py --x $V2204
V2205=$i
torchrun pretrain_gpt.py --x $V2205
V2206=$i
torchrun pretrain_gpt.py --x $V2206
V2207=$i
torchrun pretrain_gpt.py --x $V2207
V2208=$i
torchrun pretrain_gpt.py --x $V2208
V2209=$i
torchrun pretrain_gpt.py --x $V2209
V2210=$i
torchrun pretrain_gpt.py --x $V2210
V2211=$i
torchrun pretrain_gpt.py --x $V2211
V2212=$i
torchrun pretrain_gpt.py --x $V2212
V2213=$i
torchrun pretrain_gpt.py --x $V2213
V2214=$i
torchrun pretrain_gpt.py --x $V2214
V2215=$i
torchrun pretrain_gpt.py --x $V2215
V2216=$i
torchrun pretrain_gpt.py --x $V2216
V2217=$i
torchrun pretrain_gpt.py --x $V2217
V2218=$i
torchrun pretrain_gpt.py --x $V2218
V2219=$i
torchrun pretrain_gpt.py --x $V2219
V2220=$i
torchrun pretrain_gpt.py --x $V2220
V2221=$i
torchrun pretrain_gpt.py --x $V2221
V2222=$i
torchrun pretrain_gpt.py --x $V2222
V2223=$i
torchrun pretrain_gpt.py --x $V2223
V2224=$i
torchrun pretrain_gpt.py --x $V2224
V2225=$i
torchrun pretrain_gpt.py --x $V2225
V2226=$i
torchrun pretrain_gpt.py --x $V2226
V2227=$i
torchrun pretrain_gpt.py --x $V2227
V2228=$i
torchrun pretrain_gpt.py --x $V2228
V2229=$i
torchrun pretrain_gpt.py --x $V2229
V2230=$i
torchrun pretrain_gpt.py --x $V2230
V2231=$i
torchrun pretrain_gpt.py --x $V2231
V2232=$i
torchrun pretrain_gpt.py --x $V2232
V2233=$i
torchrun pretrain_gpt.py --x $V2233
V2234=$i
torchrun pretrain_gpt.py --x $V2234
V2235=$i
torchrun pretrain_gpt.py --x $V2235
V2236=$i
torchrun pretrain_gpt.py --x $V2236
V2237=$i
torchrun pretrain_gpt.py --x $V2237
V2238=$i
torchrun pretrain_gpt.py --x $V2238
V2239=$i
torchrun pretrain_gpt.py --x $V2239
V2240=$i
torchrun pretrain_gpt.py --x $V2240
V2241=$i
torchrun pretrain_gpt.py --x $V2241
V2242=$i
torchrun pretrain_gpt.py --x $V2242
V2243=$i
torchrun pretrain_gpt.py --x $V2243
V2244=$i
torchrun pretrain_gpt.py --x $V2244
V2245=$i
torchrun pretrain_gpt.py --x $V2245
V2246=$i
torchrun pretrain_gpt.py --x $V2246
V2247=$i
torchrun pretrain_gpt.py --x $V2247
V2248=$i
torchrun pretrain_gpt.py --x $V2248
V2249=$i
torchrun pretrain_gpt.py --x $V2249
V2250=$i
torchrun pretrain_gpt.py --x $V2250
V2251=$i
torchrun pretrain_gpt.py --x $V2251
V2252=$i
torchrun pretrain_gpt.py --x $V2252
V2253=$i
torchrun pretrain_gpt.py --x $V2253
V2254=$i
torchrun pretrain_gpt.py --x $V2254
V2255=$i
torchrun pretrain_gpt.py --x $V2255
V2256=$i
torchrun pretrain_gpt.py --x $V2256
V2257=$i
torchrun pretrain_gpt.py --x $V2257
V2258=$i
torchrun pretrain_gpt.py --x $V2258
V2259=$i
torchrun pretrain_gpt.py --x $V2259
V2260=$i
torchrun pretrain_gpt.py --x $V2260
V2261=$i
torchrun pretrain_gpt.py --x $V2261
V2262=$i
torchrun pretrain_gpt.py --x $V2262
V2263=$i
torchrun pretrain_gpt.py --x $V2263
V2264=$i
torchrun pretrain_gpt.py --x $V2264
V2265=$i
torchrun pretrain_gpt.py --x $V2265
V2266=$i
torchrun pretrain_gpt.py --x $V2266
V2267=$i
torchrun pretrain_gpt.py --x $V2267
V2268=$i
torchrun pretrain_gpt.py --x $V2268
V2269=$i
torchrun pretrain_gpt.py --x $V2269
V2270=$i
torchrun pretrain_gpt.py --x $V2270
V2271=$i
torchrun pretrain_gpt.py --x $V2271
V2272=$i
torchrun pretrain_gpt.py --x $V2272
V2273=$i
torchrun pretrain_gpt.py --x $V2273
V2274=$i
torchrun pretrain_gpt.py --x $V2274
V2275=$i
torchrun pretrain_gpt.py --x $V2275
V2276=$i
torchrun pretrain_gpt.py --x $V2276
V2277=$i
torchrun pretrain_gpt.py --x $V2277
V2278=$i
torchrun pretrain_gpt.py --x $V2278
V2279=$i
torchrun pretrain_gpt.py --x $V2279
V2280=$i
torchrun pretrain_gpt.py --x $V2280
V2281=$i
torchrun pretrain_gpt.py --x $V2281
V2282=$i
torchrun pretrain_gpt.py --x $V2282
V2283=$i
torchrun pretrain_gpt.py --x $V2283
V2284=$i
torchrun pretrain_gpt.py --x $V2284
V2285=$i
torchrun pretrain_gpt.py --x $V2285
V2286=$i
torchrun pretrain_gpt.py --x $V2286
V2287=$i
torchrun pretrain_gpt.py --x $V2287
V2288=$i
torchrun pretrain_gpt.py --x $V2288
V2289=$i
torchrun pretrain_gpt.py --x $V2289
V2290=$i
torchrun pretrain_gpt.py --x $V2290
V2291=$i
torchrun pretrain_gpt.py --x $V2291
V2292=$i
torchrun pretrain_gpt.py --x $V2292
V2293=$i
torchrun pretrain_gpt.py --x $V2293
V2294=$i
torchrun pretrain_gpt.py --x $V2294
V2295=$i
torchrun pretrain_gpt.py --x $V2295
V2296=$i
torchrun pretrain_gpt.py --x $V2296
V2297=$i
torchrun pretrain_gpt.py --x $V2297
V2298=$i
torchrun pretrain_gpt.py --x $V2298
V2299=$i
torchrun pretrain_gpt.py --x $V2299
V2300=$i
torchrun pretrain_gpt.py --x $V2300
V2301=$i
torchrun pretrain_gpt.py --x $V2301
V2302=$i
torchrun pretrain_gpt.py --x $V2302
V2303=$i
torchrun pretrain_gpt.py --x $V2303
V2304=$i
torchrun pretrain_gpt.py --x $V2304
V2305=$i
torchrun pretrain_gpt.py --x $V2305
V2306=$i
torchrun pretrain_gpt.py --x $V2306
V2307=$i
torchrun pretrain_gpt.py --x $V2307
V2308=$i
torchrun pretrain_gpt.py --x $V2308
V2309=$i
torchrun pretrain_gpt.py --x $V2309
V2310=$i
torchrun pretrain_gpt.py --x $V2310
V2311=$i
torchrun pretrain_gpt.py --x $V2311
V2312=$i
torchrun pretrain_gpt.py --x $V2312
V2313=$i
torchrun pretrain_gpt.py --x $V2313
V2314=$i
torchrun pretrain_gpt.py --x $V2314
V2315=$i
torchrun pretrain_gpt.py --x $V2315
V2316=$i
torchrun pretrain_gpt.py --x $V2316
V2317=$i
torchrun pretrain_gpt.py --x $V2317
V2318=$i
torchrun pretrain_gpt.py --x $V2318
V2319=$i
torchrun pretrain_gpt.py --x $V2319
V2320=$i
torchrun pretrain_gpt.py --x $V2320
V2321=$i
torchrun pretrain_gpt.py --x $V2321
V2322=$i
torchrun pretrain_gpt.py --x $V2322
V2323=$i
torchrun pretrain_gpt.py --x $V2323
V2324=$i
torchrun pretrain_gpt.py --x $V2324
V2325=$i
torchrun pretrain_gpt.py --x $V2325
V2326=$i
torchrun pretrain_gpt.py --x $V2326
V2327=$i
torchrun pretrain_gpt.py --x $V2327
V2328=$i
torchrun pretrain_gpt.py --x $V2328
V2329=$i
torchrun pretrain_gpt.py --x $V2329
V2330=$i
torchrun pretrain_gpt.py --x $V2330
V2331=$i
torchrun pretrain_gpt.py --x $V2331
V2332=$i
torchrun pretrain_gpt.py --x $V2332
V2333=$i
torchrun pretrain_gpt.py --x $V2333
V2334=$i
torchrun pretrain_gpt.py --x $V2334
V2335=$i
torchrun pretrain_gpt.py --x $V2335
V2336=$i
torchrun pretrain_gpt.py --x $V2336
V2337=$i
torchrun pretrain_gpt.py --x $V2337
V2338=$i
torchrun pretrain_gpt.py --x $V2338
V2339=$i
torchrun pretrain_gpt.py --x $V2339
V2340=$i
torchrun pretrain_gpt.py --x $V2340
V2341=$i
torchrun pretrain_gpt.py --x $V2341
V2342=$i
torchrun pretrain_gpt.py --x $V2342
V2343=$i
torchrun pretrain_gpt.py --x $V2343
V2344=$i
torchrun pretrain_gpt.py --x $V2344
V2345=$i
torchrun pretrain_gpt.py --x $V2345
V2346=$i
torchrun pretrain_gpt.py --x $V2346
V2347=$i
torchrun pretrain_gpt.py --x $V2347
V2348=$i
torchrun pretrain_gpt.py --x $V2348
V2349=$i
torchrun pretrain_gpt.py --x $V2349
V2350=$i
torchrun pretrain_gpt.py --x $V2350
V2351=$i
torchrun pretrain_gpt.py --x $V2351
V2352=$i
torchrun pretrain_gpt.py --x $V2352
V2353=$i
torchrun pretrain_gpt.py --x $V2353
V2354=$i
torchrun pretrain_gpt.py --x $V2354
V2355=$i
torchrun pretrain_gpt.py --x $V2355
V2356=$i
torchrun pretrain_gpt.py --x $V2356
V2357=$i
torchrun pretrain_gpt.py --x $V2357
V2358=$i
torchrun pretrain_gpt.py --x $V2358
V2359=$i
torchrun pretrain_gpt.py --x $V2359
V2360=$i
torchrun pretrain_gpt.py --x $V2360
V2361=$i
torchrun pretrain_gpt.py --x $V2361
V2362=$i
torchrun pretrain_gpt.py --x $V2362
V2363=$i
torchrun pretrain_gpt.py --x $V2363
V2364=$i
torchrun pretrain_gpt.py --x $V2364
V2365=$i
torchrun pretrain_gpt.py --x $V2365
V2366=$i
torchrun pretrain_gpt.py --x $V2366
V2367=$i
torchrun pretrain_gpt.py --x $V2367
V2368=$i
torchrun pretrain_gpt.py --x $V2368
V2369=$i
torchrun pretrain_gpt.py --x $V2369
V2370=$i
torchrun pretrain_gpt.py --x $V2370
V2371=$i
torchrun pretrain_gpt.py --x $V2371
V2372=$i
torchrun pretrain_gpt.py --x $V2372
V2373=$i
torchrun pretrain_gpt.py --x $V2373
V2374=$i
torchrun pretrain_gpt.py --x $V2374
V2375=$i
torchrun pretrain_gpt.py --x $V2375
V2376=$i
torchrun pretrain_gpt.py --x $V2376
V2377=$i
torchrun pretrain_gpt.py --x $V2377
V2378=$i
torchrun pretrain_gpt.py --x $V2378
V2379=$i
torchrun pretrain_gpt.py --x $V2379
V2380=$i
torchrun pretrain_gpt.py --x $V2380
V2381=$i
torchrun pretrain_gpt.py --x $V2381
V2382=$i
torchrun pretrain_gpt.py --x $V2382
V2383=$i
torchrun pretrain_gpt.py --x $V2383
V2384=$i
torchrun pretrain_gpt.py --x $V2384
V2385=$i
torchrun pretrain_gpt.py --x $V2385
V2386=$i
torchrun pretrain_gpt.py --x $V2386
V2387=$i
torchrun pretrain_gpt.py --x $V2387
V2388=$i
torchrun pretrain_gpt.py --x $V2388
V2389=$i
torchrun pretrain_gpt.py --x $V2389
V2390=$i
torchrun pretrain_gpt.py --x $V2390
V2391=$i
torchrun pretrain_gpt.py --x $V2391
V2392=$i
torchrun pretrain_gpt.py --x $V2392
V2393=$i
torchrun pretrain_gpt.py --x $V2393
V2394=$i
torchrun pretrain_gpt.py --x $V2394
V2395=$i
torchrun pretrain_gpt.py --x $V2395
V2396=$i
torchrun pretrain_gpt.py --x $V2396
V2397=$i
torchrun pretrain_gpt.py --x $V2397
V2398=$i
torchrun pretrain_gpt.py --x $V2398
V2399=$i
torchrun pretrain_gpt.py --x $V2399
V2400=$i
torchrun pretrain_gpt.py --x $V2400
V2401=$i
torchrun pretrain_gpt.py --x $V2401
V2402=$i
torchrun pretrain_gpt.py --x $V2402
V2403=$i
torchrun pretrain_gpt.py --x $V2403
V2404=$i
torchrun pretrain_gpt.py --x $V2404
V2405=$i
torchrun pretrain_gpt.py --x $V2405
V2406=$i
torchrun pretrain_gpt.py --x $V2406
V2407=$i
torchrun pretrain_gpt.py --x $V2407
V2408=$i
torchrun pretrain_gpt.py --x $V2408
V2409=$i
torchrun pretrain_gpt.py --x $V2409
V2410=$i
torchrun pretrain_gpt.py --x $V2410
V2411=$i
torchrun pretrain_gpt.py --x $V2411
V2412=$i
torchrun pretrain_gpt.py --x $V2412
V2413=$i
torchrun pretrain_gpt.py --x $V2413
V2414=$i
torchrun pretrain_gpt.py --x $V2414
V2415=$i
torchrun pretrain_gpt.py --x $V2415
V2416=$i
torchrun pretrain_gpt.py --x $V2416
V2417=$i
torchrun pretrain_gpt.py --x $V2417
V2418=$i
torchrun pretrain_gpt.py --x $V2418
V2419=$i
torchrun pretrain_gpt.py --x $V2419
V2420=$i
torchrun pretrain_gpt.py --x $V2420
V2421=$i
torchrun pretrain_gpt.py --x $V2421
V2422=$i
torchrun pretrain_gpt.py --x $V2422
V2423=$i
torchrun pretrain_gpt.py --x $V2423
V2424=$i
torchrun pretrain_gpt.py --x $V2424
V2425=$i
torchrun pretrain_gpt.py --x $V2425
V2426=$i
torchrun pretrain_gpt.py --x $V2426
V2427=$i
torchrun pretrain_gpt.py --x $V2427
V2428=$i
torchrun pretrain_gpt.py --x $V2428
V2429=$i
torchrun pretrain_gpt.py --x $V2429
V2430=$i
torchrun pretrain_gpt.py --x $V2430
V2431=$i
torchrun pretrain_gpt.py --x $V2431
V2432=$i
torchrun pretrain_gpt.py --x $V2432
V2433=$i
torchrun pretrain_gpt.py --x $V2433
V2434=$i
torchrun pretrain_gpt.py --x $V2434
V2435=$i
torchrun pretrain_gpt.py --x $V2435
V2436=$i
torchrun pretrain_gpt.py --x $V2436
V2437=$i
torchrun pretrain_gpt.py --x $V2437
V2438=$i
torchrun pretrain_gpt.py --x $V2438
V2439=$i
torchrun pretrain_gpt.py --x $V2439
V2440=$i
torchrun pretrain_gpt.py --x $V2440
V2441=$i
torchrun pretrain_gpt.py --x $V2441
V2442=$i
torchrun pretrain_gpt.py --x $V2442
V2443=$i
torchrun pretrain_gpt.py --x $V2443
V2444=$i
torchrun pretrain_gpt.py --x $V2444
V2445=$i
torchrun pretrain_gpt.py --x $V2445
V2446=$i
torchrun pretrain_gpt.py --x $V2446
V2447=$i
torchrun pretrain_gpt.py --x $V2447
V2448=$i
torchrun pretrain_gpt.py --x $V2448
V2449=$i
torchrun pretrain_gpt.py --x $V2449
V2450=$i
torchrun pretrain_gpt.py --x $V2450
V2451=$i
torchrun pretrain_gpt.py --x $V2451
V2452=$i
torchrun pretrain_gpt.py --x $V2452
V2453=$i
torchrun pretrain_gpt.py --x $V2453
V2454=$i
torchrun pretrain_gpt.py --x $V2454
V2455=$i
torchrun pretrain_gpt.py --x $V2455
V2456=$i
torchrun pretrain_gpt.py --x $V2456
V2457=$i
torchrun pretrain_gpt.py --x $V2457
V2458=$i
torchrun pretrain_gpt.py --x $V2458
V2459=$i
torchrun pretrain_gpt.py --x $V2459
V2460=$i
torchrun pretrain_gpt.py --x $V2460
V2461=$i
torchrun pretrain_gpt.py --x $V2461
V2462=$i
torchrun pretrain_gpt.py --x $V2462
V2463=$i
torchrun pretrain_gpt.py --x $V2463
V2464=$i
torchrun pretrain_gpt.py --x $V2464
V2465=$i
torchrun pretrain_gpt.py --x $V2465
V2466=$i
torchrun pretrain_gpt.py --x $V2466
V2467=$i
torchrun pretrain_gpt.py --x $V2467
V2468=$i
torchrun pretrain_gpt.py --x $V2468
V2469=$i
torchrun pretrain_gpt.py --x $V2469
V2470=$i
torchrun pretrain_gpt.py --x $V2470
V2471=$i
torchrun pretrain_gpt.py --x $V2471
V2472=$i
torchrun pretrain_gpt.py --x $V2472
V2473=$i
torchrun pretrain_gpt.py --x $V2473
V2474=$i
torchrun pretrain_gpt.py --x $V2474
V2475=$i
torchrun pretrain_gpt.py --x $V2475
V2476=$i
torchrun pretrain_gpt.py --x $V2476
V2477=$i
torchrun pretrain_gpt.py --x $V2477
V2478=$i
torchrun pretrain_gpt.py --x $V2478
V2479=$i
torchrun pretrain_gpt.py --x $V2479
V2480=$i
torchrun pretrain_gpt.py --x $V2480
V2481=$i
torchrun pretrain_gpt.py --x $V2481
V2482=$i
torchrun pretrain_gpt.py --x $V2482
V2483=$i
torchrun pretrain_gpt.py --x $V2483
V2484=$i
torchrun pretrain_gpt.py --x $V2484
V2485=$i
torchrun pretrain_gpt.py --x $V2485
V2486=$i
torchrun pretrain_gpt.py --x $V2486
V2487=$i
torchrun pretrain_gpt.py --x $V2487
V2488=$i
torchrun pretrain_gpt.py --x $V2488
V2489=$i
torchrun pretrain_gpt.py --x $V2489
V2490=$i
torchrun pretrain_gpt.py --x $V2490
V2491=$i
torchrun pretrain_gpt.py --x $V2491
V2492=$i
torchrun pretrain_gpt.py --x $V2492
V2493=$i
torchrun pretrain_gpt.py --x $V2493
V2494=$i
torchrun pretrain_gpt.py --x $V2494
V2495=$i
torchrun pretrain_gpt.py --x $V2495
V2496=$i
torchrun pretrain_gpt.py --x $V2496
V2497=$i
torchrun pretrain_gpt.py --x $V2497
V2498=$i
torchrun pretrain_gpt.py --x $V2498
V2499=$i
torchrun pretrain_gpt.py --x $V2499
V2500=$i
torchrun pretrain_gpt.py --x $V2500
V2501=$i
torchrun pretrain_gpt.py --x $V2501
V2502=$i
torchrun pretrain_gpt.py --x $V2502
V2503=$i
torchrun pretrain_gpt.py --x $V2503
V2504=$i
torchrun pretrain_gpt.py --x $V2504
V2505=$i
torchrun pretrain_gpt.py --x $V2505
V2506=$i
torchrun pretrain_gpt.py --x $V2506
V2507=$i
torchrun pretrain_gpt.py --x $V2507
V2508=$i
torchrun pretrain_gpt.py --x $V2508
V2509=$i
torchrun pretrain_gpt.py --x $V2509
V2510=$i
torchrun pretrain_gpt.py --x $V2510
V2511=$i
torchrun pretrain_gpt.py --x $V2511
V2512=$i
torchrun pretrain_gpt.py --x $V2512
V2513=$i
torchrun pretrain_gpt.py --x $V2513
V2514=$i
torchrun pretrain_gpt.py --x $V2514
V2515=$i
torchrun pretrain_gpt.py --x $V2515
V2516=$i
torchrun pretrain_gpt.py --x $V2516
V2517=$i
torchrun pretrain_gpt.py --x $V2517
V2518=$i
torchrun pretrain_gpt.py --x $V2518
V2519=$i
torchrun pretrain_gpt.py --x $V2519
V2520=$i
torchrun pretrain_gpt.py --x $V2520
V2521=$i
torchrun pretrain_gpt.py --x $V2521
V2522=$i
torchrun pretrain_gpt.py --x $V2522
V2523=$i
torchrun pretrain_gpt.py --x $V2523
V2524=$i
torchrun pretrain_gpt.py --x $V2524
V2525=$i
torchrun pretrain_gpt.py --x $V2525
V2526=$i
torchrun pretrain_gpt.py --x $V2526
V2527=$i
torchrun pretrain_gpt.py --x $V2527
V2528=$i
torchrun pretrain_gpt.py --x $V2528
V2529=$i
torchrun pretrain_gpt.py --x $V2529
V2530=$i
torchrun pretrain_gpt.py --x $V2530
V2531=$i
torchrun pretrain_gpt.py --x $V2531
V2532=$i
torchrun pretrain_gpt.py --x $V2532
V2533=$i
torchrun pretrain_gpt.py --x $V2533
V2534=$i
torchrun pretrain_gpt.py --x $V2534
V2535=$i
torchrun pretrain_gpt.py --x $V2535
V2536=$i
torchrun pretrain_gpt.py --x $V2536
V2537=$i
torchrun pretrain_gpt.py --x $V2537
V2538=$i
torchrun pretrain_gpt.py --x $V2538
V2539=$i
torchrun pretrain_gpt.py --x $V2539
V2540=$i
torchrun pretrain_gpt.py --x $V2540
V2541=$i
torchrun pretrain_gpt.py --x $V2541
V2542=$i
torchrun pretrain_gpt.py --x $V2542
V2543=$i
torchrun pretrain_gpt.py --x $V2543
V2544=$i
torchrun pretrain_gpt.py --x $V2544
V2545=$i
torchrun pretrain_gpt.py --x $V2545
V2546=$i
torchrun pretrain_gpt.py --x $V2546
V2547=$i
torchrun pretrain_gpt.py --x $V2547
V2548=$i
torchrun pretrain_gpt.py --x $V2548
V2549=$i
torchrun pretrain_gpt.py --x $V2549
V2550=$i
torchrun pretrain_gpt.py --x $V2550
V2551=$i
torchrun pretrain_gpt.py --x $V2551
V2552=$i
torchrun pretrain_gpt.py --x $V2552
V2553=$i
torchrun pretrain_gpt.py --x $V2553
V2554=$i
torchrun pretrain_gpt.py --x $V2554
V2555=$i
torchrun pretrain_gpt.py --x $V2555
V2556=$i
torchrun pretrain_gpt.py --x $V2556
V2557=$i
torchrun pretrain_gpt.py --x $V2557
V2558=$i
torchrun pretrain_gpt.py --x $V2558
V2559=$i
torchrun pretrain_gpt.py --x $V2559
V2560=$i
torchrun pretrain_gpt.py --x $V2560
V2561=$i
torchrun pretrain_gpt.py --x $V2561
V2562=$i
torchrun pretrain_gpt.py --x $V2562
V2563=$i
torchrun pretrain_gpt.py --x $V2563
V2564=$i
torchrun pretrain_gpt.py --x $V2564
V2565=$i
torchrun pretrain_gpt.py --x $V2565
V2566=$i
torchrun pretrain_gpt.py --x $V2566
V2567=$i
torchrun pretrain_gpt.py --x $V2567
V2568=$i
torchrun pretrain_gpt.py --x $V2568
V2569=$i
torchrun pretrain_gpt.py --x $V2569
V2570=$i
torchrun pretrain_gpt.py --x $V2570
V2571=$i
torchrun pretrain_gpt.py --x $V2571
V2572=$i
torchrun pretrain_gpt.py --x $V2572
V2573=$i
torchrun pretrain_gpt.py --x $V2573
V2574=$i
torchrun pretrain_gpt.py --x $V2574
V2575=$i
torchrun pretrain_gpt.py --x $V2575
V2576=$i
torchrun pretrain_gpt.py --x $V2576
V2577=$i
torchrun pretrain_gpt.py --x $V2577
V2578=$i
torchrun pretrain_gpt.py --x $V2578
V2579=$i
torchrun pretrain_gpt.py --x $V2579
V2580=$i
torchrun pretrain_gpt.py --x $V2580
V2581=$i
torchrun pretrain_gpt.py --x $V2581
V2582=$i
torchrun pretrain_gpt.py --x $V2582
V2583=$i
torchrun pretrain_gpt.py --x $V2583
V2584=$i
torchrun pretrain_gpt.py --x $V2584
V2585=$i
torchrun pretrain_gpt.py --x $V2585
V2586=$i
torchrun pretrain_gpt.py --x $V2586
V2587=$i
torchrun pretrain_gpt.py --x $V2587
V2588=$i
torchrun pretrain_gpt.py --x $V2588
V2589=$i
torchrun pretrain_gpt.py --x $V2589
V2590=$i
torchrun pretrain_gpt.py --x $V2590
V2591=$i
torchrun pretrain_gpt.py --x $V2591
V2592=$i
torchrun pretrain_gpt.py --x $V2592
V2593=$i
torchrun pretrain_gpt.py --x $V2593
V2594=$i
torchrun pretrain_gpt.py --x $V2594
V2595=$i
torchrun pretrain_gpt.py --x $V2595
V2596=$i
torchrun pretrain_gpt.py --x $V2596
V2597=$i
torchrun pretrain_gpt.py --x $V2597
V2598=$i
torchrun pretrain_gpt.py --x $V2598
V2599=$i
torchrun pretrain_gpt.py --x $V2599
V2600=$i
torchrun pretrain_gpt.py --x $V2600
V2601=$i
torchrun pretrain_gpt.py --x $V2601
V2602=$i
torchrun pretrain_gpt.py --x $V2602
V2603=$i
torchrun pretrain_gpt.py --x $V2603
V2604=$i
torchrun pretrain_gpt.py --x $V2604
V2605=$i
torchrun pretrain_gpt.py --x $V2605
V2606=$i
torchrun pretrain_gpt.py --x $V2606
V2607=$i
torchrun pretrain_gpt.py --x $V2607
V2608=$i
torchrun pretrain_gpt.py --x $V2608
V2609=$i
torchrun pretrain_gpt.py --x $V2609
V2610=$i
torchrun pretrain_gpt.py --x $V2610
V2611=$i
torchrun pretrain_gpt.py --x $V2611
V2612=$i
torchrun pretrain_gpt.py --x $V2612
V2613=$i
torchrun pretrain_gpt.py --x $V2613
V2614=$i
torchrun pretrain_gpt.py --x $V2614
V2615=$i
torchrun pretrain_gpt.py --x $V2615
V2616=$i
torchrun pretrain_gpt.py --x $V2616
V2617=$i
torchrun pretrain_gpt.py --x $V2617
V2618=$i
torchrun pretrain_gpt.py --x $V2618
V2619=$i
torchrun pretrain_gpt.py --x $V2619
V2620=$i
torchrun pretrain_gpt.py --x $V2620
V2621=$i
torchrun pretrain_gpt.py --x $V2621
V2622=$i
torchrun pretrain_gpt.py --x $V2622
V2623=$i
torchrun pretrain_gpt.py --x $V2623
V2624=$i
torchrun pretrain_gpt.py --x $V2624
V2625=$i
torchrun pretrain_gpt.py --x $V2625
V2626=$i
torchrun pretrain_gpt.py --x $V2626
V2627=$i
torchrun pretrain_gpt.py --x $V2627
V2628=$i
torchrun pretrain_gpt.py --x $V2628
V2629=$i
torchrun pretrain_gpt.py --x $V2629
V2630=$i
torchrun pretrain_gpt.py --x $V2630
V2631=$i
torchrun pretrain_gpt.py --x $V2631
V2632=$i
torchrun pretrain_gpt.py --x $V2632
V2633=$i
torchrun pretrain_gpt.py --x $V2633
V2634=$i
torchrun pretrain_gpt.py --x $V2634
V2635=$i
torchrun pretrain_gpt.py --x $V2635
V2636=$i
torchrun pretrain_gpt.py --x $V2636
V2637=$i
torchrun pretrain_gpt.py --x $V2637
V2638=$i
torchrun pretrain_gpt.py --x $V2638
V2639=$i
torchrun pretrain_gpt.py --x $V2639
V2640=$i
torchrun pretrain_gpt.py --x $V2640
V2641=$i
torchrun pretrain_gpt.py --x $V2641
V2642=$i
torchrun pretrain_gpt.py --x $V2642
V2643=$i
torchrun pretrain_gpt.py --x $V2643
V2644=$i
torchrun pretrain_gpt.py --x $V2644
V2645=$i
torchrun pretrain_gpt.py --x $V2645
V2646=$i
torchrun pretrain_gpt.py --x $V2646
V2647=$i
torchrun pretrain_gpt.py --x $V2647
V2648=$i
torchrun pretrain_gpt.py --x $V2648
V2649=$i
torchrun pretrain_gpt.py --x $V2649
V2650=$i
torchrun pretrain_gpt.py --x $V2650
V2651=$i
torchrun pretrain_gpt.py --x $V2651
V2652=$i
torchrun pretrain_gpt.py --x $V2652
V2653=$i
torchrun pretrain_gpt.py --x $V2653
V2654=$i
torchrun pretrain_gpt.py --x $V2654
V2655=$i
torchrun pretrain_gpt.py --x $V2655
V2656=$i
torchrun pretrain_gpt.py --x $V2656
V2657=$i
torchrun pretrain_gpt.py --x $V2657
V2658=$i
torchrun pretrain_gpt.py --x $V2658
V2659=$i
torchrun pretrain_gpt.py --x $V2659
V2660=$i
torchrun pretrain_gpt.py --x $V2660
V2661=$i
torchrun pretrain_gpt.py --x $V2661
V2662=$i
torchrun pretrain_gpt.py --x $V2662
V2663=$i
torchrun pretrain_gpt.py --x $V2663
V2664=$i
torchrun pretrain_gpt.py --x $V2664
V2665=$i
torchrun pretrain_gpt.py --x $V2665
V2666=$i
torchrun pretrain_gpt.py --x $V2666
V2667=$i
torchrun pretrain_gpt.py --x $V2667
V2668=$i
torchrun pretrain_gpt.py --x $V2668
V2669=$i
torchrun pretrain_gpt.py --x $V2669
V2670=$i
torchrun pretrain_gpt.py --x $V2670
V2671=$i
torchrun pretrain_gpt.py --x $V2671
V2672=$i
torchrun pretrain_gpt.py --x $V2672
V2673=$i
torchrun pretrain_gpt.py --x $V2673
V2674=$i
torchrun pretrain_gpt.py --x $V2674
V2675=$i
torchrun pretrain_gpt.py --x $V2675
V2676=$i
torchrun pretrain_gpt.py --x $V2676
V2677=$i
torchrun pretrain_gpt.py --x $V2677
V2678=$i
torchrun pretrain_gpt.py --x $V2678
V2679=$i
torchrun pretrain_gpt.py --x $V2679
V2680=$i
torchrun pretrain_gpt.py --x $V2680
V2681=$i
torchrun pretrain_gpt.py --x $V2681
V2682=$i
torchrun pretrain_gpt.py --x $V2682
V2683=$i
torchrun pretrain_gpt.py --x $V2683
V2684=$i
torchrun pretrain_gpt.py --x $V2684
V2685=$i
torchrun pretrain_gpt.py --x $V2685
V2686=$i
torchrun pretrain_gpt.py --x $V2686
V2687=$i
torchrun pretrain_gpt.py --x $V2687
V2688=$i
torchrun pretrain_gpt.py --x $V2688
V2689=$i
torchrun pretrain_gpt.py --x $V2689
V2690=$i
torchrun pretrain_gpt.py --x $V2690
V2691=$i
torchrun pretrain_gpt.py --x $V2691
V2692=$i
torchrun pretrain_gpt.py --x $V2692
V2693=$i
torchrun pretrain_gpt.py --x $V2693
V2694=$i
torchrun pretrain_gpt.py --x $V2694
V2695=$i
torchrun pretrain_gpt.py --x $V2695
V2696=$i
torchrun pretrain_gpt.py --x $V2696
V2697=$i
torchrun pretrain_gpt.py --x $V2697
V2698=$i
torchrun pretrain_gpt.py --x $V2698
V2699=$i
torchrun pretrain_gpt.py --x $V2699
V2700=$i
torchrun pretrain_gpt.py --x $V2700
V2701=$i
torchrun pretrain_gpt.py --x $V2701
V2702=$i
torchrun pretrain_gpt.py --x $V2702
V2703=$i
torchrun pretrain_gpt.py --x $V2703
V2704=$i
torchrun pretrain_gpt.py --x $V2704
V2705=$i
torchrun pretrain_gpt.py --x $V2705
V2706=$i
torchrun pretrain_gpt.py --x $V2706
V2707=$i
torchrun pretrain_gpt.py --x $V2707
V2708=$i
torchrun pretrain_gpt.py --x $V2708
V2709=$i
torchrun pretrain_gpt.py --x $V2709
V2710=$i
torchrun pretrain_gpt.py --x $V2710
V2711=$i
torchrun pretrain_gpt.py --x $V2711
V2712=$i
torchrun pretrain_gpt.py --x $V2712
V2713=$i
torchrun pretrain_gpt.py --x $V2713
V2714=$i
torchrun pretrain_gpt.py --x $V2714
V2715=$i
torchrun pretrain_gpt.py --x $V2715
V2716=$i
torchrun pretrain_gpt.py --x $V2716
V2717=$i
torchrun pretrain_gpt.py --x $V2717
V2718=$i
torchrun pretrain_gpt.py --x $V2718
V2719=$i
torchrun pretrain_gpt.py --x $V2719
V2720=$i
torchrun pretrain_gpt.py --x $V2720
V2721=$i
torchrun pretrain_gpt.py --x $V2721
V2722=$i
torchrun pretrain_gpt.py --x $V2722
V2723=$i
torchrun pretrain_gpt.py --x $V2723
V2724=$i
torchrun pretrain_gpt.py --x $V2724
V2725=$i
torchrun pretrain_gpt.py --x $V2725
V2726=$i
torchrun pretrain_gpt.py --x $V2726
V2727=$i
torchrun pretrain_gpt.py --x $V2727
V2728=$i
torchrun pretrain_gpt.py --x $V2728
V2729=$i
torchrun pretrain_gpt.py --x $V2729
V2730=$i
torchrun pretrain_gpt.py --x $V2730
V2731=$i
torchrun pretrain_gpt.py --x $V2731
V2732=$i
torchrun pretrain_gpt.py --x $V2732
V2733=$i
torchrun pretrain_gpt.py --x $V2733
V2734=$i
torchrun pretrain_gpt.py --x $V2734
V2735=$i
torchrun pretrain_gpt.py --x $V2735
V2736=$i
torchrun pretrain_gpt.py --x $V2736
V2737=$i
torchrun pretrain_gpt.py --x $V2737
V2738=$i
torchrun pretrain_gpt.py --x $V2738
V2739=$i
torchrun pretrain_gpt.py --x $V2739
V2740=$i
torchrun pretrain_gpt.py --x $V2740
V2741=$i
torchrun pretrain_gpt.py --x $V2741
V2742=$i
torchrun pretrain_gpt.py --x $V2742
V2743=$i
torchrun pretrain_gpt.py --x $V2743
V2744=$i
torchrun pretrain_gpt.py --x $V2744
V2745=$i
torchrun pretrain_gpt.py --x $V2745
V2746=$i
torchrun pretrain_gpt.py --x $V2746
V2747=$i
torchrun pretrain_gpt.py --x $V2747
V2748=$i
torchrun pretrain_gpt.py --x $V2748
V2749=$i
torchrun pretrain_gpt.py --x $V2749
V2750=$i
torchrun pretrain_gpt.py --x $V2750
V2751=$i
torchrun pretrain_gpt.py --x $V2751
V2752=$i
torchrun pretrain_gpt.py --x $V2752
V2753=$i
torchrun pretrain_gpt.py --x $V2753
V2754=$i
torchrun pretrain_gpt.py --x $V2754
V2755=$i
torchrun pretrain_gpt.py --x $V2755
V2756=$i
torchrun pretrain_gpt.py --x $V2756
V2757=$i
torchrun pretrain_gpt.py --x $V2757
V2758=$i
torchrun pretrain_gpt.py --x $V2758
V2759=$i
torchrun pretrain_gpt.py --x $V2759
V2760=$i
torchrun pretrain_gpt.py --x $V2760
V2761=$i
torchrun pretrain_gpt.py --x $V2761
V2762=$i
torchrun pretrain_gpt.py --x $V2762
V2763=$i
torchrun pretrain_gpt.py --x $V2763
V2764=$i
torchrun pretrain_gpt.py --x $V2764
V2765=$i
torchrun pretrain_gpt.py --x $V2765
V2766=$i
torchrun pretrain_gpt.py --x $V2766
V2767=$i
torchrun pretrain_gpt.py --x $V2767
V2768=$i
torchrun pretrain_gpt.py --x $V2768
V2769=$i
torchrun pretrain_gpt.py --x $V2769
V2770=$i
torchrun pretrain_gpt.py --x $V2770
V2771=$i
torchrun pretrain_gpt.py --x $V2771
V2772=$i
torchrun pretrain_gpt.py --x $V2772
V2773=$i
torchrun pretrain_gpt.py --x $V2773
V2774=$i
torchrun pretrain_gpt.py --x $V2774
V2775=$i
torchrun pretrain_gpt.py --x $V2775
V2776=$i
torchrun pretrain_gpt.py --x $V2776
V2777=$i
torchrun pretrain_gpt.py --x $V2777
V2778=$i
torchrun pretrain_gpt.py --x $V2778
V2779=$i
torchrun pretrain_gpt.py --x $V2779
V2780=$i
torchrun pretrain_gpt.py --x $V2780
V2781=$i
torchrun pretrain_gpt.py --x $V2781
V2782=$i
torchrun pretrain_gpt.py --x $V2782
V2783=$i
torchrun pretrain_gpt.py --x $V2783
V2784=$i
torchrun pretrain_gpt.py --x $V2784
V2785=$i
torchrun pretrain_gpt.py --x $V2785
V2786=$i
torchrun pretrain_gpt.py --x $V2786
V2787=$i
torchrun pretrain_gpt.py --x $V2787
V2788=$i
torchrun pretrain_gpt.py --x $V2788
V2789=$i
torchrun pretrain_gpt.py --x $V2789
V2790=$i
torchrun pretrain_gpt.py --x $V2790
V2791=$i
torchrun pretrain_gpt.py --x $V2791
V2792=$i
torchrun pretrain_gpt.py --x $V2792
V2793=$i
torchrun pretrain_gpt.py --x $V2793
V2794=$i
torchrun pretrain_gpt.py --x $V2794
V2795=$i
torchrun pretrain_gpt.py --x $V2795
V2796=$i
torchrun pretrain_gpt.py --x $V2796
V2797=$i
torchrun pretrain_gpt.py --x $V2797
V2798=$i
torchrun pretrain_gpt.py --x $V2798
V2799=$i
torchrun pretrain_gpt.py --x $V2799
V2800=$i
torchrun pretrain_gpt.py --x $V2800
V2801=$i
torchrun pretrain_gpt.py --x $V2801
V2802=$i
torchrun pretrain_gpt.py --x $V2802
V2803=$i
torchrun pretrain_gpt.py --x $V2803
V2804=$i
torchrun pretrain_gpt.py --x $V2804
V2805=$i
torchrun pretrain_gpt.py --x $V2805
V2806=$i
torchrun pretrain_gpt.py --x $V2806
V2807=$i
torchrun pretrain_gpt.py --x $V2807
V2808=$i
torchrun pretrain_gpt.py --x $V2808
V2809=$i
torchrun pretrain_gpt.py --x $V2809
V2810=$i
torchrun pretrain_gpt.py --x $V2810
V2811=$i
torchrun pretrain_gpt.py --x $V2811
V2812=$i
torchrun pretrain_gpt.py --x $V2812
V2813=$i
torchrun pretrain_gpt.py --x $V2813
V2814=$i
torchrun pretrain_gpt.py --x $V2814
V2815=$i
torchrun pretrain_gpt.py --x $V2815
V2816=$i
torchrun pretrain_gpt.py --x $V2816
V2817=$i
torchrun pretrain_gpt.py --x $V2817
V2818=$i
torchrun pretrain_gpt.py --x $V2818
V2819=$i
torchrun pretrain_gpt.py --x $V2819
V2820=$i
torchrun pretrain_gpt.py --x $V2820
V2821=$i
torchrun pretrain_gpt.py --x $V2821
V2822=$i
torchrun pretrain_gpt.py --x $V2822
V2823=$i
torchrun pretrain_gpt.py --x $V2823
V2824=$i
torchrun pretrain_gpt.py --x $V2824
V2825=$i
torchrun pretrain_gpt.py --x $V2825
V2826=$i
torchrun pretrain_gpt.py --x $V2826
V2827=$i
torchrun pretrain_gpt.py --x $V2827
V2828=$i
torchrun pretrain_gpt.py --x $V2828
V2829=$i
torchrun pretrain_gpt.py --x $V2829
V2830=$i
torchrun pretrain_gpt.py --x $V2830
V2831=$i
torchrun pretrain_gpt.py --x $V2831
V2832=$i
torchrun pretrain_gpt.py --x $V2832
V2833=$i
torchrun pretrain_gpt.py --x $V2833
V2834=$i
torchrun pretrain_gpt.py --x $V2834
V2835=$i
torchrun pretrain_gpt.py --x $V2835
V2836=$i
torchrun pretrain_gpt.py --x $V2836
V2837=$i
torchrun pretrain_gpt.py --x $V2837
V2838=$i
torchrun pretrain_gpt.py --x $V2838
V2839=$i
torchrun pretrain_gpt.py --x $V2839
V2840=$i
torchrun pretrain_gpt.py --x $V2840
V2841=$i
torchrun pretrain_gpt.py --x $V2841
V2842=$i
torchrun pretrain_gpt.py --x $V2842
V2843=$i
torchrun pretrain_gpt.py --x $V2843
V2844=$i
torchrun pretrain_gpt.py --x $V2844
V2845=$i
torchrun pretrain_gpt.py --x $V2845
V2846=$i
torchrun pretrain_gpt.py --x $V2846
V2847=$i
torchrun pretrain_gpt.py --x $V2847
V2848=$i
torchrun pretrain_gpt.py --x $V2848
V2849=$i
torchrun pretrain_gpt.py --x $V2849
V2850=$i
torchrun pretrain_gpt.py --x $V2850
V2851=$i
torchrun pretrain_gpt.py --x $V2851
V2852=$i
torchrun pretrain_gpt.py --x $V2852
V2853=$i
torchrun pretrain_gpt.py --x $V2853
V2854=$i
torchrun pretrain_gpt.py --x $V2854
V2855=$i
torchrun pretrain_gpt.py --x $V2855
V2856=$i
torchrun pretrain_gpt.py --x $V2856
V2857=$i
torchrun pretrain_gpt.py --x $V2857
V2858=$i
torchrun pretrain_gpt.py --x $V2858
V2859=$i
torchrun pretrain_gpt.py --x $V2859
V2860=$i
torchrun pretrain_gpt.py --x $V2860
V2861=$i
torchrun pretrain_gpt.py --x $V2861
V2862=$i
torchrun pretrain_gpt.py --x $V2862
V2863=$i
torchrun pretrain_gpt.py --x $V2863
V2864=$i
torchrun pretrain_gpt.py --x $V2864
V2865=$i
torchrun pretrain_gpt.py --x $V2865
V2866=$i
torchrun pretrain_gpt.py --x $V2866
V2867=$i
torchrun pretrain_gpt.py --x $V2867
V2868=$i
torchrun pretrain_gpt.py --x $V2868
V2869=$i
torchrun pretrain_gpt.py --x $V2869
V2870=$i
torchrun pretrain_gpt.py --x $V2870
V2871=$i
torchrun pretrain_gpt.py --x $V2871
V2872=$i
torchrun pretrain_gpt.py --x $V2872
V2873=$i
torchrun pretrain_gpt.py --x $V2873
V2874=$i
torchrun pretrain_gpt.py --x $V2874
V2875=$i
torchrun pretrain_gpt.py --x $V2875
V2876=$i
torchrun pretrain_gpt.py --x $V2876
V2877=$i
torchrun pretrain_gpt.py --x $V2877
V2878=$i
torchrun pretrain_gpt.py --x $V2878
V2879=$i
torchrun pretrain_gpt.py --x $V2879
V2880=$i
torchrun pretrain_gpt.py --x $V2880
V2881=$i
torchrun pretrain_gpt.py --x $V2881
V2882=$i
torchrun pretrain_gpt.py --x $V2882
V2883=$i
torchrun pretrain_gpt.py --x $V2883
V2884=$i
torchrun pretrain_gpt.py --x $V2884
V2885=$i
torchrun pretrain_gpt.py --x $V2885
V2886=$i
torchrun pretrain_gpt.py --x $V2886
V2887=$i
torchrun pretrain_gpt.py --x $V2887
V2888=$i
torchrun pretrain_gpt.py --x $V2888
V2889=$i
torchrun pretrain_gpt.py --x $V2889
V2890=$i
torchrun pretrain_gpt.py --x $V2890
V2891=$i
torchrun pretrain_gpt.py --x $V2891
V2892=$i
torchrun pretrain_gpt.py --x $V2892
V2893=$i
torchrun pretrain_gpt.py --x $V2893
V2894=$i
torchrun pretrain_gpt.py --x $V2894
V2895=$i
torchrun pretrain_gpt.py --x $V2895
V2896=$i
torchrun pretrain_gpt.py --x $V2896
V2897=$i
torchrun pretrain_gpt.py --x $V2897
V2898=$i
torchrun pretrain_gpt.py --x $V2898
V2899=$i
torchrun pretrain_gpt.py --x $V2899
V2900=$i
torchrun pretrain_gpt.py --x $V2900
V2901=$i
torchrun pretrain_gpt.py --x $V2901
V2902=$i
torchrun pretrain_gpt.py --x $V2902
V2903=$i
torchrun pretrain_gpt.py --x $V2903
V2904=$i
torchrun pretrain_gpt.py --x $V2904
V2905=$i
torchrun pretrain_gpt.py --x $V2905
V2906=$i
torchrun pretrain_gpt.py --x $V2906
V2907=$i
torchrun pretrain_gpt.py --x $V2907
V2908=$i
torchrun pretrain_gpt.py --x $V2908
V2909=$i
torchrun pretrain_gpt.py --x $V2909
V2910=$i
torchrun pretrain_gpt.py --x $V2910
V2911=$i
torchrun pretrain_gpt.py --x $V2911
V2912=$i
torchrun pretrain_gpt.py --x $V2912
V2913=$i
torchrun pretrain_gpt.py --x $V2913
V2914=$i
torchrun pretrain_gpt.py --x $V2914
V2915=$i
torchrun pretrain_gpt.py --x $V2915
V2916=$i
torchrun pretrain_gpt.py --x $V2916
V2917=$i
torchrun pretrain_gpt.py --x $V2917
V2918=$i
torchrun pretrain_gpt.py --x $V2918
V2919=$i
torchrun pretrain_gpt.py --x $V2919
V2920=$i
torchrun pretrain_gpt.py --x $V2920
V2921=$i
torchrun pretrain_gpt.py --x $V2921
V2922=$i
torchrun pretrain_gpt.py --x $V2922
V2923=$i
torchrun pretrain_gpt.py --x $V2923
V2924=$i
torchrun pretrain_gpt.py --x $V2924
V2925=$i
torchrun pretrain_gpt.py --x $V2925
V2926=$i
torchrun pretrain_gpt.py --x $V2926
V2927=$i
torchrun pretrain_gpt.py --x $V2927
V2928=$i
torchrun pretrain_gpt.py --x $V2928
V2929=$i
torchrun pretrain_gpt.py --x $V2929
V2930=$i
torchrun pretrain_gpt.py --x $V2930
V2931=$i
torchrun pretrain_gpt.py --x $V2931
V2932=$i
torchrun pretrain_gpt.py --x $V2932
V2933=$i
torchrun pretrain_gpt.py --x $V2933
V2934=$i
torchrun pretrain_gpt.py --x $V2934
V2935=$i
torchrun pretrain_gpt.py --x $V2935
V2936=$i
torchrun pretrain_gpt.py --x $V2936
V2937=$i
torchrun pretrain_gpt.py --x $V2937
V2938=$i
torchrun pretrain_gpt.py --x $V2938
V2939=$i
torchrun pretrain_gpt.py --x $V2939
V2940=$i
torchrun pretrain_gpt.py --x $V2940
V2941=$i
torchrun pretrain_gpt.py --x $V2941
V2942=$i
torchrun pretrain_gpt.py --x $V2942
V2943=$i
torchrun pretrain_gpt.py --x $V2943
V2944=$i
torchrun pretrain_gpt.py --x $V2944
V2945=$i
torchrun pretrain_gpt.py --x $V2945
V2946=$i
torchrun pretrain_gpt.py --x $V2946
V2947=$i
torchrun pretrain_gpt.py --x $V2947
V2948=$i
torchrun pretrain_gpt.py --x $V2948
V2949=$i
torchrun pretrain_gpt.py --x $V2949
V2950=$i
torchrun pretrain_gpt.py --x $V2950
V2951=$i
torchrun pretrain_gpt.py --x $V2951
V2952=$i
torchrun pretrain_gpt.py --x $V2952
V2953=$i
torchrun pretrain_gpt.py --x $V2953
V2954=$i
torchrun pretrain_gpt.py --x $V2954
V2955=$i
torchrun pretrain_gpt.py --x $V2955
V2956=$i
torchrun pretrain_gpt.py --x $V2956
V2957=$i
torchrun pretrain_gpt.py --x $V2957
V2958=$i
torchrun pretrain_gpt.py --x $V2958
V2959=$i
torchrun pretrain_gpt.py --x $V2959
V2960=$i
torchrun pretrain_gpt.py --x $V2960
V2961=$i
torchrun pretrain_gpt.py --x $V2961
V2962=$i
torchrun pretrain_gpt.py --x $V2962
V2963=$i
torchrun pretrain_gpt.py --x $V2963
V2964=$i
torchrun pretrain_gpt.py --x $V2964
V2965=$i
torchrun pretrain_gpt.py --x $V2965
V2966=$i
torchrun pretrain_gpt.py --x $V2966
V2967=$i
torchrun pretrain_gpt.py --x $V2967
V2968=$i
torchrun pretrain_gpt.py --x $V2968
V2969=$i
torchrun pretrain_gpt.py --x $V2969
V2970=$i
torchrun pretrain_gpt.py --x $V2970
V2971=$i
torchrun pretrain_gpt.py --x $V2971
V2972=$i
torchrun pretrain_gpt.py --x $V2972
V2973=$i
torchrun pretrain_gpt.py --x $V2973
V2974=$i
torchrun pretrain_gpt.py --x $V2974
V2975=$i
torchrun pretrain_gpt.py --x $V2975
V2976=$i
torchrun pretrain_gpt.py --x $V2976
V2977=$i
torchrun pretrain_gpt.py --x $V2977
V2978=$i
torchrun pretrain_gpt.py --x $V2978
V2979=$i
torchrun pretrain_gpt.py --x $V2979
V2980=$i
torchrun pretrain_gpt.py --x $V2980
V2981=$i
torchrun pretrain_gpt.py --x $V2981
V2982=$i
torchrun pretrain_gpt.py --x $V2982
V2983=$i
torchrun pretrain_gpt.py --x $V2983
V2984=$i
torchrun pretrain_gpt.py --x $V2984
V2985=$i
torchrun pretrain_gpt.py --x $V2985
V2986=$i
torchrun pretrain_gpt.py --x $V2986
V2987=$i
torchrun pretrain_gpt.py --x $V2987
V2988=$i
torchrun pretrain_gpt.py --x $V2988
V2989=$i
torchrun pretrain_gpt.py --x $V2989
V2990=$i
torchrun pretrain_gpt.py --x $V2990
V2991=$i
torchrun pretrain_gpt.py --x $V2991
V2992=$i
torchrun pretrain_gpt.py --x $V2992
V2993=$i
torchrun pretrain_gpt.py --x $V2993
V2994=$i
torchrun pretrain_gpt.py --x $V2994
V2995=$i
torchrun pretrain_gpt.py --x $V2995
V2996=$i
torchrun pretrain_gpt.py --x $V2996
V2997=$i
torchrun pretrain_gpt.py --x $V2997
V2998=$i
torchrun pretrain_gpt.py --x $V2998
V2999=$i
torchrun pretrain_gpt.py --x $V2999
